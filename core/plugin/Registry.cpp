// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/plugin/Registry.h"

#include "core/plugin/PluginInfo.h"

#include <setscope/sdk/Errors.h>
#include <setscope/sdk/Plugin.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <grp.h>
#include <link.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace fs = std::filesystem;

namespace setscope::plugin {

namespace {
template <class T>
const T* findByName(const std::vector<T>& v, const std::string& name)
{
    for (auto it = v.rbegin(); it != v.rend(); ++it)
        if (it->name == name)
            return &*it;
    return nullptr;
}

template <class T>
std::string names(const std::vector<T>& v)
{
    std::string s;
    for (const auto& x : v)
        s += (s.empty() ? "" : ", ") + x.name;
    return s.empty() ? std::string("none") : s;
}

std::string str(const char* s) { return s ? std::string(s) : std::string("(null)"); }

/// A schema whose defaults do not pass its own checks (or that names an option twice) is a
/// bug of the item: refuse it at registration, not when a user first runs it.
void checkSchema(const char* kind, const std::string& name, const sdk::OptionSchema& schema)
{
    try {
        (void)sdk::OptionValues::resolve(schema, {}, std::string(kind) + " " + name);
    } catch (const std::exception& e) {
        throw PluginError(e.what());
    }
    for (const sdk::OptionSpec& o : schema)
        if (o.name.empty() || o.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") != std::string::npos)
            throw PluginError(std::string(kind) + " " + name + ": option name '" + o.name +
                              "' must be lower-case letters, digits and '-'");
}

template <class T>
void add(std::vector<T>& v, T info, const char* kind, bool hasFactory)
{
    if (info.name.empty() || !hasFactory)
        throw PluginError(std::string("a registered ") + kind + " needs a name and a factory");
    checkSchema(kind, info.name, info.options);
    v.push_back(std::move(info));
}

template <class T>
const T& require(const std::vector<T>& v, const std::string& name, const char* kind)
{
    if (const T* t = findByName(v, name))
        return *t;
    throw std::invalid_argument("unknown " + std::string(kind) + " '" + name + "' (available: " + names(v) + ")");
}
} // namespace

void Registry::addLoader(sdk::LoaderInfo info)
{
    if (info.name.empty() || !info.load || !info.canLoad)
        throw PluginError("a loader needs a name, canLoad and load");
    checkSchema("loader", info.name, info.options);
    m_loaders.push_back(std::move(info));
}

void Registry::addEncoder(sdk::EncoderInfo info)
{
    const bool f = static_cast<bool>(info.create);
    add(m_encoders, std::move(info), "encoder", f);
}
void Registry::addLoss(sdk::LossInfo info)
{
    const bool f = static_cast<bool>(info.create);
    add(m_losses, std::move(info), "loss", f);
}
void Registry::addOptimizer(sdk::OptimizerInfo info)
{
    const bool f = static_cast<bool>(info.create);
    const sdk::OptionSpec* lr = sdk::findOption(info.options, "lr");
    if (!lr || lr->type != sdk::OptionType::Real)
        throw PluginError("optimizer " + info.name + " must declare a real option 'lr' (the schedule scales it)");
    add(m_optimizers, std::move(info), "optimizer", f);
}
void Registry::addAugmentation(sdk::AugmentationInfo info)
{
    const bool f = static_cast<bool>(info.create);
    add(m_augmentations, std::move(info), "augmentation", f);
}
void Registry::addSampler(sdk::SamplerInfo info)
{
    const bool f = static_cast<bool>(info.create);
    add(m_samplers, std::move(info), "sampler", f);
}
void Registry::addRecipe(sdk::RecipeInfo info)
{
    const bool f = static_cast<bool>(info.stages);
    add(m_recipes, std::move(info), "recipe", f);
}

std::vector<ItemRef> Registry::trainingItems() const
{
    std::vector<ItemRef> out;
    auto add = [&](const auto& infos, const char* kind) {
        for (const auto& i : infos)
            out.push_back({kind, &i.name, &i.description, &i.options});
    };
    add(m_recipes, "recipe");
    add(m_encoders, "model");
    add(m_losses, "loss");
    add(m_augmentations, "augmentation");
    add(m_samplers, "sampler");
    add(m_optimizers, "optimizer");
    return out;
}

const sdk::EncoderInfo* Registry::encoder(const std::string& name) const { return findByName(m_encoders, name); }
const sdk::LossInfo* Registry::loss(const std::string& name) const { return findByName(m_losses, name); }
const sdk::OptimizerInfo* Registry::optimizer(const std::string& name) const { return findByName(m_optimizers, name); }
const sdk::AugmentationInfo* Registry::augmentation(const std::string& name) const
{
    return findByName(m_augmentations, name);
}
const sdk::SamplerInfo* Registry::sampler(const std::string& name) const { return findByName(m_samplers, name); }
const sdk::RecipeInfo* Registry::recipe(const std::string& name) const { return findByName(m_recipes, name); }
const sdk::OptimizerInfo& Registry::requireOptimizer(const std::string& name) const
{
    return require(m_optimizers, name, "optimizer");
}
const sdk::AugmentationInfo& Registry::requireAugmentation(const std::string& name) const
{
    return require(m_augmentations, name, "augmentation");
}
const sdk::SamplerInfo& Registry::requireSampler(const std::string& name) const
{
    return require(m_samplers, name, "sampler");
}
const sdk::RecipeInfo& Registry::requireRecipe(const std::string& name) const
{
    return require(m_recipes, name, "recipe");
}

const sdk::EncoderInfo& Registry::requireEncoder(const std::string& name) const
{
    if (const auto* e = encoder(name))
        return *e;
    throw std::invalid_argument("unknown model '" + name + "' (available: " + names(m_encoders) + ")");
}

const sdk::LossInfo& Registry::requireLoss(const std::string& name) const
{
    if (const auto* l = loss(name))
        return *l;
    throw std::invalid_argument("unknown loss '" + name + "' (available: " + names(m_losses) + ")");
}

const sdk::LoaderInfo& Registry::loaderFor(const std::string& path) const
{
    std::error_code ec;
    if (!fs::exists(path, ec))
        throw sdk::InputError(path, "", "no such file or folder");
    for (auto it = m_loaders.rbegin(); it != m_loaders.rend(); ++it)
        if (it->canLoad(path))
            return *it;
    throw sdk::InputError(path, "", "no loader recognises this input (tried: " + names(m_loaders) + ")");
}

namespace {

/// True for this user's own private group (the group named like the user, with no other
/// members, this process's group): Debian's user-private-group scheme (USERGROUPS_ENAB,
/// umask 002) makes a user's folders group-writable, which lets nobody else in.
bool isPrivateGroup(gid_t gid)
{
    if (gid != ::getegid())
        return false;
    const group* g = ::getgrgid(gid);
    if (!g || (g->gr_mem && g->gr_mem[0]))
        return false;
    const passwd* pw = ::getpwuid(::geteuid());
    return pw && pw->pw_name && g->gr_name && std::strcmp(pw->pw_name, g->gr_name) == 0;
}

} // namespace

std::optional<std::string> unsafePluginLocation(const std::string& path)
{
    const fs::path p(path);
    if (!p.is_absolute())
        return "'" + path + "' is a relative path: plugins are never loaded from the working directory";
    std::error_code ec;
    const fs::path real = fs::weakly_canonical(p, ec);
    if (ec)
        return "cannot resolve " + path + ": " + ec.message();
    const uid_t me = ::geteuid();
    // The file or folder itself, then every folder above it: whoever can write to one of them
    // can put their own code in its place.
    bool first = true;
    for (fs::path at = real;; at = at.parent_path()) {
        struct stat st {};
        if (::lstat(at.c_str(), &st) != 0)
            return "cannot check " + at.string() + ": " + std::strerror(errno);
        const bool sticky = (st.st_mode & S_ISVTX) != 0;
        std::string why;
        if (st.st_uid != 0 && st.st_uid != me)
            why = "is owned by another user (uid " + std::to_string(st.st_uid) + ")";
        else if ((st.st_mode & S_IWOTH) && !(sticky && !first))
            why = "can be written by every user";
        else if ((st.st_mode & S_IWGRP) && !(sticky && !first) && !isPrivateGroup(st.st_gid))
            why = "can be written by its group (gid " + std::to_string(st.st_gid) + ")";
        if (!why.empty())
            return at.string() + " " + why + "; plugins are loaded only from folders no other user can write to";
        if (at == at.root_path() || at.parent_path() == at)
            break;
        first = false;
    }
    return std::nullopt;
}

namespace {

/// Closes a file descriptor when it goes out of scope.
struct Fd {
    int fd = -1;
    ~Fd()
    {
        if (fd >= 0)
            ::close(fd);
    }
};

bool sameFile(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

} // namespace

const LoadedPlugin& Registry::loadPlugin(const std::string& path)
{
    // The path is resolved once, the file opened there (no symlink at the end, and none left
    // in the resolved path), the resolved path checked, and exactly that file loaded: dlopen
    // of the path as given would resolve its symlinks again, and a symlink in a folder others
    // can write to could be pointed elsewhere between the check and the load (issue 29 §6).
    if (!fs::path(path).is_absolute())
        throw PluginError("plugin " + path + " refused: " + *unsafePluginLocation(path));
    std::error_code ec;
    const fs::path real = fs::canonical(fs::path(path), ec);
    if (ec)
        throw PluginError("plugin " + path + " cannot be loaded: " + ec.message());
    const std::string shown = real == fs::path(path) ? path : path + " (" + real.string() + ")";
    Fd file{::open(real.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW)};
    struct stat opened {};
    if (file.fd < 0 || ::fstat(file.fd, &opened) != 0)
        throw PluginError("plugin " + shown + " cannot be opened: " + std::strerror(errno));
    if (!S_ISREG(opened.st_mode))
        throw PluginError("plugin " + shown + " refused: not a regular file");
    if (const auto why = unsafePluginLocation(real.string()))
        throw PluginError("plugin " + shown + " refused: " + *why);
    // The checked path must still name the file opened before the check (only this user or
    // root could have changed it: every folder on it was found writable by nobody else).
    struct stat checked {};
    if (::lstat(real.c_str(), &checked) != 0 || !S_ISREG(checked.st_mode) || !sameFile(opened, checked))
        throw PluginError("plugin " + shown + " refused: the file changed while it was checked");
    void* h = dlopen(real.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h)
        throw PluginError("plugin " + shown + " cannot be loaded: " + str(dlerror()));
    // And what the loader mapped is that file (not another object loaded earlier by that name).
    {
        link_map* map = nullptr;
        struct stat mapped {};
        if (dlinfo(h, RTLD_DI_LINKMAP, &map) != 0 || !map || !map->l_name || ::stat(map->l_name, &mapped) != 0 ||
            !sameFile(opened, mapped)) {
            dlclose(h);
            throw PluginError("plugin " + shown + " refused: the loaded object is not the file that was checked");
        }
    }
    auto infoFn = reinterpret_cast<sdk::PluginInfoFn>(dlsym(h, sdk::kPluginInfoSymbol));
    auto regFn = reinterpret_cast<sdk::PluginRegisterFn>(dlsym(h, sdk::kPluginRegisterSymbol));
    if (!infoFn || !regFn) {
        dlclose(h);
        throw PluginError("plugin " + path + " is not a setscope plugin (no SETSCOPE_PLUGIN entry point)");
    }
    const PluginInfoCheck check = checkPluginInfo(infoFn(), sdk::hostInfo());
    if (!check.why.empty()) {
        dlclose(h);
        throw PluginError("refused plugin '" + check.name + "' (" + path + "): " + check.why);
    }
    LoadedPlugin p{path, check.name, check.version};
    for (const auto& q : m_plugins)
        if (q.name == p.name) {
            // dlopen of the same file returns the same handle with a second reference;
            // drop ours so the first load is unaffected.
            dlclose(h);
            throw PluginError("plugin '" + p.name + "' from " + path + " is already loaded from " + q.path);
        }
    regFn(this);
    m_plugins.push_back(std::move(p));
    return m_plugins.back();
}

std::vector<std::string> Registry::loadPluginDirectory(const std::string& dir)
{
    std::vector<std::string> errors;
    std::error_code ec;
    if (!fs::path(dir).is_absolute()) {
        errors.push_back("plugin folder " + *unsafePluginLocation(dir));
        return errors;
    }
    if (!fs::is_directory(dir, ec))
        return errors;
    if (const auto why = unsafePluginLocation(dir)) {
        errors.push_back("plugin folder " + dir + " refused: " + *why);
        return errors;
    }
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.is_regular_file() && e.path().extension() == ".so")
            files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
        try {
            loadPlugin(f.string());
        } catch (const std::exception& e) {
            errors.emplace_back(e.what());
        }
    }
    return errors;
}

std::vector<std::string> defaultPluginDirectories(const std::string& executablePath, std::vector<std::string>* refused)
{
    std::vector<std::string> candidates;
    if (const char* env = std::getenv("SETSCOPE_PLUGIN_PATH"); env && *env) {
        std::string s = env;
        std::size_t b = 0;
        while (b <= s.size()) {
            const std::size_t e = std::min(s.find(':', b), s.size());
            // An empty entry means the working directory in PATH-like variables, and a relative
            // one is resolved against it: neither is a plugin folder here.
            const std::string entry = s.substr(b, e - b);
            if (!entry.empty() && fs::path(entry).is_absolute())
                candidates.push_back(entry);
            else if (refused)
                refused->push_back("SETSCOPE_PLUGIN_PATH entry '" + entry + "' ignored: " +
                                   (entry.empty() ? std::string("an empty entry would be the working directory")
                                                  : "a relative path") +
                                   "; plugins are never loaded from the working directory");
            b = e + 1;
        }
    }
    std::error_code ec;
    const fs::path exe = fs::weakly_canonical(fs::path(executablePath), ec);
    const fs::path dir = exe.parent_path();
    candidates.push_back((dir / ".." / "lib" / "setscope" / "plugins").string());
    candidates.push_back((dir / ".." / ".." / "plugins").string());
    std::vector<std::string> out;
    for (const auto& c : candidates) {
        if (!fs::is_directory(c, ec))
            continue;
        const std::string canon = fs::weakly_canonical(c, ec).string();
        if (std::find(out.begin(), out.end(), canon) == out.end())
            out.push_back(canon);
    }
    return out;
}

} // namespace setscope::plugin
