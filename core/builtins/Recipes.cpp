// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// The built-in recipes. A recipe only names the stages other items make (a loss, a sampler,
// an augmentation, the labels a stage reads), so the papers' recipes are one table, an entry
// per recipe, in core/train/Recipes.cpp; adding a recipe is adding an entry there.
#include "core/builtins/Builtins.h"

#include "core/train/Recipes.h"

namespace setscope::builtins {

void registerRecipes(sdk::Registrar& r)
{
    for (sdk::RecipeInfo& recipe : train::builtinRecipes())
        r.addRecipe(std::move(recipe));
}

} // namespace setscope::builtins
