// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
// Compiled with exactly the usage requirements of setscope_gui (tests/meta/CMakeLists.txt):
// if LibTorch's API headers were reachable from a target that links the GUI -- because core
// or the SDK exported them again -- the build stops here. (On Debian <ATen/...> and <c10/...>
// sit in /usr/include, where any target reaches them; the GUI's objects are checked for
// references to those namespaces by tst_LayerRules::guiObjectsReferNoTorch.)
#if __has_include(<torch/version.h>) || __has_include(<torch/torch.h>) || __has_include(<torch/types.h>)
#error "LibTorch's headers are reachable from setscope_gui: keep setscope_torch and setscope_sdk_model private to core"
#endif

int setscopeGuiTorchProbe() { return 0; }
