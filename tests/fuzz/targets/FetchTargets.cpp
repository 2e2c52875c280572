// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Fuzz targets of the fetchers' parsers of downloaded bytes (see FuzzTargets.h).
#include "tests/fuzz/targets/FuzzTargets.h"

#include "core/fetch/Subprocess.h"
#include "core/fetch/FetchContext.h"
#include "core/fetch/Fetchers.h"
#include "core/fetch/corpora/Corpora.h"

#include <setscope/sdk/Errors.h>

#include <string>

namespace setscope::fuzz {

void fetchLists(const std::uint8_t* data, std::size_t size)
{
    if (size == 0)
        return;
    // The first byte picks the parser; the rest is its input.
    const int which = data[0] % 6;
    ++data;
    --size;
    const TempDir dir("fetch-lists");
    const auto parts = splitInput(data, size, 3);
    const std::string out = dir.path() + "/out";
    try {
        switch (which) {
        case 0: (void)fetch::parseJavaProperties(std::string(reinterpret_cast<const char*>(data), size)); break;
        case 1: (void)fetch::digitsCsvToIdx(dir.write("digits.csv", parts[0]), dir.path()); break;
        case 2: (void)fetch::gloveJsonToWord2vec(dir.write("glove.json", parts[0]), out, nullptr); break;
        case 3:
            dir.write("data.noun", parts[0]);
            if (parts[1].data())
                dir.write("lexnames", parts[1]);
            if (parts[2].data())
                dir.write("data.verb", parts[2]);
            (void)fetch::corpora::writeWordnetGlosses(dir.path(), out);
            break;
        case 4:
            dir.write("ca01", parts[0]);
            if (parts[1].data())
                dir.write("cr09", parts[1]);
            (void)fetch::corpora::writeBrown(dir.path(), out);
            break;
        default:
            dir.write("deb.example.org_debian_dists_x_main_binary-amd64_Packages", parts[0]);
            if (parts[1].data())
                dir.write("deb.example.org_debian_dists_x_main_i18n_Translation-en", parts[1]);
            fetch::corpora::DebianDescriptionsOptions o;
            o.minClassSize = 1;
            (void)fetch::corpora::writeDebianDescriptions(dir.path(), out, o);
            break;
        }
    } catch (const sdk::InputError&) {
    } catch (const fetch::FetchError&) {
    }
}

void fetchArchives(const std::uint8_t* data, std::size_t size)
{
    if (size == 0)
        return;
    const int which = data[0] % 4;
    const TempDir dir("fetch-archives");
    const std::string archive = dir.write("archive", std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
    const std::string out = dir.path() + "/out";
    try {
        if (which < 2) {
            (void)fetch::extractTarball(archive, out, which == 1, nullptr);
        } else {
            std::string credits;
            fetch::FurnitureResult r;
            fetch::extractFurnitureCatalog(archive, out, credits, r, nullptr);
        }
    } catch (const sdk::InputError&) {
    } catch (const fetch::FetchError&) {
    }
}

} // namespace setscope::fuzz
