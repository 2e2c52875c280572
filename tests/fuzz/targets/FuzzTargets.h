// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once
// Fuzz targets: one function per reader of outside bytes. Each takes any bytes, runs the
// reader on them and returns normally when the reader accepted them or refused them with
// sdk::InputError; anything else (another exception, a crash, a sanitizer report, a hang,
// memory beyond libFuzzer's -rss_limit_mb) is a finding. The same functions run under
// libFuzzer (tests/fuzz/run.sh, clang-14) and, over the checked-in corpus and every
// regression input, as the ordinary CTest test fuzz_corpus (tst_FuzzCorpus.cpp).

#include <cstddef>
#include <cstdint>
#include <string>

namespace setscope::fuzz {

/// The bytes as a file (the readers take paths): a per-process file under $TMPDIR (or
/// /tmp), removed by the destructor.
class TempFile {
public:
    TempFile(const std::uint8_t* data, std::size_t size, const char* suffix);
    ~TempFile();
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    const std::string& path() const { return m_path; }

private:
    std::string m_path;
};

/// data::checkMatV5Claims, the size-claim walk of MAT v5/v7 files (with a 64 MiB budget).
void matClaims(const std::uint8_t* data, std::size_t size);

} // namespace setscope::fuzz
