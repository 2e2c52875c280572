// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace setscope::nn {

/// Reads an encoder's free-form options (sdk::EncoderSpec::options) against the keys it
/// declares. Every error is a std::invalid_argument whose message starts with
/// "ENCODER: option 'KEY'" and says what was expected, so the CLI can show it as is.
/// Torch-free.
class EncoderOptions {
public:
    /// Throws when `options` holds a key that is not in `known`.
    EncoderOptions(std::string encoder, const std::map<std::string, std::string>& options,
                   const std::vector<std::string>& known);

    /// An integer >= 1 (`def` when the key is absent).
    std::int64_t positiveInt(const std::string& key, std::int64_t def) const;
    /// An integer >= 0.
    std::int64_t nonNegativeInt(const std::string& key, std::int64_t def) const;
    /// A probability in [0, 1).
    double probability(const std::string& key, double def) const;
    /// A comma-separated list of integers >= 1 ("512,256"); an empty value is an empty list
    /// only when `allowEmpty`.
    std::vector<std::int64_t> widths(const std::string& key, const std::vector<std::int64_t>& def,
                                     bool allowEmpty) const;

private:
    const std::string* find(const std::string& key) const;
    [[noreturn]] void fail(const std::string& key, const std::string& value, const std::string& expected) const;

    std::string m_encoder;
    const std::map<std::string, std::string>& m_options;
};

/// "512,256" for {512, 256}: how a widths default reads in option docs.
std::string joinWidths(const std::vector<std::int64_t>& widths);

} // namespace setscope::nn
