// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/train/CheckedLoad.h"

#include <setscope/sdk/Errors.h>

#include <torch/nn/module.h>
#include <torch/serialize/input-archive.h>

namespace setscope::train {

namespace {

std::string shapeText(c10::IntArrayRef sizes)
{
    if (sizes.empty())
        return "a scalar";
    std::string s;
    for (const std::int64_t d : sizes)
        s += (s.empty() ? "" : " x ") + std::to_string(d);
    return s;
}

void check(const torch::nn::Module& module, torch::serialize::InputArchive& archive, const std::string& prefix,
           const std::string& file, const std::string& what)
{
    const auto compare = [&](const std::string& key, const torch::Tensor& mine, bool isBuffer) {
        const std::string name = prefix + key;
        torch::Tensor theirs;
        if (!archive.try_read(key, theirs, isBuffer))
            throw sdk::InputError(file, "", what + ": the file has no " + (isBuffer ? "buffer" : "parameter") + " '" +
                                                name + "' (" + shapeText(mine.sizes()) + " in the model)");
        if (!mine.defined())
            return;
        if (theirs.sizes() != mine.sizes())
            throw sdk::InputError(file, "", what + ": '" + name + "' is " + shapeText(theirs.sizes()) +
                                                " in the file, " + shapeText(mine.sizes()) + " in the model");
        if (theirs.scalar_type() != mine.scalar_type())
            throw sdk::InputError(file, "", what + ": '" + name + "' holds " +
                                                std::string(c10::toString(theirs.scalar_type())) + " values in the file, " +
                                                c10::toString(mine.scalar_type()) + " in the model");
        // The right shape and type over a storage that holds no data, or less than the shape
        // and offset reach, passed here and failed in the first forward pass, far from the
        // file (the checkpoint fuzz target of issue 12).
        if (theirs.numel() > 0) {
            std::int64_t last = theirs.storage_offset();
            bool negative = last < 0;
            for (std::int64_t d = 0; d < theirs.dim(); ++d) {
                negative = negative || theirs.stride(d) < 0;
                last += (theirs.size(d) - 1) * theirs.stride(d);
            }
            const auto needed = static_cast<std::uint64_t>(last + 1) * theirs.element_size();
            if (negative || !theirs.has_storage() || theirs.storage().data() == nullptr ||
                theirs.storage().nbytes() < needed)
                throw sdk::InputError(file, "", what + ": '" + name + "' (" + shapeText(theirs.sizes()) +
                                                    ") has no data for its shape in the file");
        }
    };
    for (const auto& p : module.named_parameters(/*recurse=*/false))
        compare(p.key(), p.value(), false);
    for (const auto& b : module.named_buffers(/*recurse=*/false))
        compare(b.key(), b.value(), true);
    for (const auto& c : module.named_children()) {
        if (!c.value()->is_serializable())
            continue;
        torch::serialize::InputArchive child;
        if (!archive.try_read(c.key(), child))
            throw sdk::InputError(file, "", what + ": the file has no layer '" + prefix + c.key() + "'");
        check(*c.value(), child, prefix + c.key() + ".", file, what);
    }
}

} // namespace

void loadChecked(torch::nn::Module& module, torch::serialize::InputArchive& archive, const std::string& file,
                 const std::string& what)
{
    check(module, archive, "", file, what);
    module.load(archive);
}

} // namespace setscope::train
