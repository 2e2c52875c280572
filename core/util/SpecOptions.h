// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// The option text of a dataset spec ("brown:vectors=train,tf=1", "PATH?points=2048",
// "synthetic:dim=8") as the key=value pairs that sdk::OptionValues::resolve checks against
// a schema: the one parser of dataset options.

#include <setscope/sdk/Options.h>

#include <map>
#include <string>
#include <utility>

namespace setscope::util {

/// Splits "name:options" at the first colon ("name" alone gives empty options).
std::pair<std::string, std::string> splitSpec(const std::string& spec);

/// The key=value items of an option text ("vectors=train,tf=1"): separated by ',', spaces
/// around keys and values removed, empty items skipped. `what` names the dataset or loader
/// in messages. Throws std::invalid_argument for an item that is not key=value and for a
/// key given twice. Values are not checked here: resolve them against a schema.
std::map<std::string, std::string> parseSpecOptions(const std::string& what, const std::string& text);

/// parseSpecOptions, then sdk::OptionValues::resolve against `schema`: an unknown key is an
/// error listing the known ones, a bad value one naming the option, the value and what is
/// allowed (std::invalid_argument, prefixed with `owner`).
sdk::OptionValues resolveSpecOptions(const sdk::OptionSchema& schema, const std::string& text, const std::string& owner);

/// `schema` with other defaults (name -> value as typed), for a source that reads with an
/// item's options but its own defaults (bzr: the sdf loader with class=ACTIVITY). The new
/// defaults are checked when the schema is resolved. Throws std::logic_error naming `owner`
/// for a name the schema does not declare.
sdk::OptionSchema withDefaults(sdk::OptionSchema schema, const std::map<std::string, std::string>& defaults,
                               const std::string& owner);

} // namespace setscope::util
