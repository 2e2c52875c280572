// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/dist/Gloo.h"

#include "core/util/TorchCompat.h"

#include <torch/csrc/distributed/c10d/FileStore.hpp>
#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <ATen/ATen.h>

#ifndef USE_C10D_GLOO
#error "this LibTorch was built without c10d's Gloo backend (USE_C10D_GLOO): see cmake/SetscopeDependencies.cmake"
#endif

#include <cstdlib>

namespace setscope::dist {

namespace {

/// The first line of a c10d error (c10::Error appends a backtrace to its message).
std::string firstLine(const std::exception& e)
{
    std::string why = e.what();
    if (const auto nl = why.find('\n'); nl != std::string::npos)
        why.resize(nl);
    return why;
}

bool isLoopback(const std::string& host)
{
    return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

class GlooCommunicator final : public Communicator {
public:
    GlooCommunicator(const Rendezvous& r, c10::intrusive_ptr<c10d::Store> store,
                     c10::intrusive_ptr<c10d::ProcessGroupGloo> pg)
        : m_r(r)
        , m_store(std::move(store))
        , m_pg(std::move(pg))
    {
    }
    ~GlooCommunicator() override = default;

    int rank() const override { return m_r.rank; }
    int size() const override { return m_r.worldSize; }
    int localRank() const override { return m_r.localRank; }
    std::string describe() const override { return m_r.describe() + ", Gloo"; }

    void allreduceSum(std::span<float> v) override { allreduce(view(v), "all-reduce"); }
    void allreduceSum(std::span<double> v) override { allreduce(view(v), "all-reduce"); }
    void broadcast(std::span<float> v, int root) override { bcast(view(v), root); }
    void broadcast(std::span<std::int64_t> v, int root) override { bcast(view(v), root); }
    using Communicator::broadcast;
    void barrier() override
    {
        run("barrier", [&] { return m_pg->barrier(); });
    }
    std::int64_t add(const std::string& key, std::int64_t delta) override
    {
        try {
            return m_store->add("setscope/" + key, delta);
        } catch (const std::exception& e) {
            const std::string why = firstLine(e);
            throw PeerLost("rank " + std::to_string(m_r.rank) + " of " + std::to_string(m_r.worldSize) +
                           ": the run's store failed: " + why);
        }
    }
    void send(std::span<const std::int64_t> v, int dst, int tag) override { sendTensor(constView(v), dst, tag); }
    void send(std::span<const float> v, int dst, int tag) override { sendTensor(constView(v), dst, tag); }
    int recvAny(std::span<std::int64_t> v, int tag) override
    {
        std::vector<at::Tensor> t{view(v)};
        c10::intrusive_ptr<c10d::Work> w; // c10d::Work in 1.13 and 2.x
        run("receive", [&] { return w = m_pg->recvAnysource(t, tag); });
        return w->sourceRank();
    }
    void recv(std::span<std::int64_t> v, int src, int tag) override { recvTensor(view(v), src, tag); }
    void recv(std::span<float> v, int src, int tag) override { recvTensor(view(v), src, tag); }

private:
    void recvTensor(at::Tensor t, int src, int tag)
    {
        std::vector<at::Tensor> ts{std::move(t)};
        run("receive from rank " + std::to_string(src), [&] { return m_pg->recv(ts, src, tag); });
    }
    template <class T>
    static at::Tensor view(std::span<T> v)
    {
        return at::from_blob(v.data(), {static_cast<std::int64_t>(v.size())}, torchcompat::hostOptions<T>());
    }
    template <class T>
    static at::Tensor constView(std::span<const T> v)
    {
        // Gloo reads a sent tensor only; the cast does not write through it.
        return at::from_blob(const_cast<T*>(v.data()), {static_cast<std::int64_t>(v.size())},
                             torchcompat::hostOptions<T>());
    }
    void allreduce(at::Tensor t, const char* what)
    {
        if (t.numel() == 0)
            return;
        std::vector<at::Tensor> ts{std::move(t)};
        run(what, [&] { return m_pg->allreduce(ts); });
    }
    void bcast(at::Tensor t, int root)
    {
        if (t.numel() == 0)
            return;
        std::vector<at::Tensor> ts{std::move(t)};
        c10d::BroadcastOptions o;
        o.rootRank = root;
        run("broadcast from rank " + std::to_string(root), [&] { return m_pg->broadcast(ts, o); });
    }
    void sendTensor(at::Tensor t, int dst, int tag)
    {
        std::vector<at::Tensor> ts{std::move(t)};
        run("send to rank " + std::to_string(dst), [&] { return m_pg->send(ts, dst, tag); });
    }
    /// Starts and waits for one operation; a failure (a closed connection, the timeout) becomes
    /// PeerLost with this rank, the operation and Gloo's reason.
    template <class Start>
    void run(const std::string& what, Start&& start)
    {
        try {
            auto work = start();
            work->wait();
        } catch (const std::exception& e) {
            const std::string why = firstLine(e);
            throw PeerLost("rank " + std::to_string(m_r.rank) + " of " + std::to_string(m_r.worldSize) + ": " + what +
                           " failed: " + why + " (another rank stopped, or did not answer within " +
                           std::to_string(std::chrono::duration_cast<std::chrono::seconds>(m_r.timeout).count()) +
                           " s; see that rank's messages)");
        }
    }

    Rendezvous m_r;
    c10::intrusive_ptr<c10d::Store> m_store;
    c10::intrusive_ptr<c10d::ProcessGroupGloo> m_pg;
};

} // namespace

std::shared_ptr<Communicator> connectGloo(const Rendezvous& r)
{
    try {
        c10::intrusive_ptr<c10d::Store> store;
        if (!r.file.empty()) {
            store = c10::make_intrusive<c10d::FileStore>(r.file, r.worldSize);
        } else {
            c10d::TCPStoreOptions o;
            o.port = static_cast<std::uint16_t>(r.port);
            o.isServer = r.rank == 0 && !r.agentStore;
            o.numWorkers = r.worldSize;
            o.waitWorkers = !r.agentStore;
            o.timeout = r.timeout;
            store = c10::make_intrusive<c10d::TCPStore>(r.host, o);
            if (r.agentStore) // torchrun's convention: each restart of the workers under its own prefix
                store = c10::make_intrusive<c10d::PrefixStore>("/worker/attempt_" + std::to_string(r.restartCount), store);
        }
        store->setTimeout(r.timeout);
        auto opts = c10d::ProcessGroupGloo::Options::create(r.timeout);
        if (const char* ifname = std::getenv("GLOO_SOCKET_IFNAME"); ifname && *ifname)
            opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(ifname));
        else if (!r.file.empty() || isLoopback(r.host))
            opts->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
        else
            opts->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
        auto pg = c10::make_intrusive<c10d::ProcessGroupGloo>(store, r.rank, r.worldSize, opts);
        return std::make_shared<GlooCommunicator>(r, std::move(store), std::move(pg));
    } catch (const PeerLost&) {
        throw;
    } catch (const std::exception& e) {
        const std::string why = firstLine(e);
        throw PeerLost(r.describe() + ": cannot join the run: " + why);
    }
}

} // namespace setscope::dist
