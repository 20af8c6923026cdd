// The streaming scan behind `cudiag fleet`: worker threads take files in
// chunks, read (and decompress) each into a reused buffer, reduce it to its
// projection with simdjson, and look the projection up in a cache — first
// their own, then the shared StackTable under a mutex, which runs
// read_stack() only for a projection nobody has seen. Per report, each
// thread keeps its name, its entry and its findings' indices; nothing of the
// report's bytes survives the next file. Threads merge once, at the end.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "workflow/fleet.h"
#include "workflow/fleet_extract.h"
#include "workflow/fleet_stacks.h"

namespace cudiag::workflow::fleet {

namespace {

constexpr std::size_t kChunk = 32;  // files a thread takes at once: few atomics, even balance

// 128 bits of hash stand for a projection (two seeds of libstdc++'s 64-bit
// murmur hash): memory for the cache is 16 bytes per distinct projection, not
// its ~1-3 KB, and a collision among even 10^9 projections is below 10^-20.
struct Key {
  std::size_t a, b;
  bool operator==(const Key&) const = default;
};
struct KeyHash {
  std::size_t operator()(const Key& k) const { return k.a; }
};
Key key_of(const std::string& s) {
  return {std::_Hash_bytes(s.data(), s.size(), 0xc70f6907u),
          std::_Hash_bytes(s.data(), s.size(), 0x9e3779b9u)};
}

struct Cached {
  int entry = -1;
  std::string bad;
};

struct LocalFinding {
  std::string severity, layer, message;
  std::uint32_t message_from = UINT32_MAX;
  Members members, errors;
};

int severity_rank(const std::string& s) {
  return s == "error" ? 3 : s == "warning" ? 2 : s == "info" ? 1 : 0;
}

struct Shared {
  const std::vector<std::string>& files;
  StackTable table;
  std::vector<Entry> entries;
  std::unordered_map<Key, int, KeyHash> cache;
  std::mutex mutex;
  std::atomic<std::size_t> next{0};
  // Per file, each written only by the thread that reads that file.
  std::vector<int> entry_of;
  std::vector<std::string> names;
  std::vector<std::uint8_t> by_host;
};

struct Local {
  std::unordered_map<Key, Cached, KeyHash> cache;
  std::vector<std::pair<std::uint32_t, std::string>> unreadable;
  std::unordered_map<std::string, LocalFinding> findings;
  std::unordered_map<std::string, Members> first_failing;
  std::size_t undiagnosed = 0;
};

const Cached& lookup(Shared& sh, Local& loc, const std::string& projection) {
  Key k = key_of(projection);
  auto it = loc.cache.find(k);
  if (it != loc.cache.end()) return it->second;
  Cached c;
  {
    std::lock_guard lock(sh.mutex);
    auto g = sh.cache.find(k);
    if (g == sh.cache.end()) {
      sh.entries.push_back(sh.table.add(projection));
      g = sh.cache.emplace(k, static_cast<int>(sh.entries.size() - 1)).first;
    }
    c.entry = g->second;
    c.bad = sh.entries[static_cast<std::size_t>(c.entry)].bad;
  }
  return loc.cache.emplace(k, std::move(c)).first->second;
}

void add_findings(Local& loc, const Extract& x, std::uint32_t i) {
  for (const auto& f : x.findings) {
    auto& lf = loc.findings[f.id];
    // A rule may give one id twice (once per GPU): the node counts once.
    if (lf.members.empty() || lf.members.back() != i) lf.members.push_back(i);
    if (f.severity == "error" && (lf.errors.empty() || lf.errors.back() != i)) lf.errors.push_back(i);
    if (severity_rank(f.severity) > severity_rank(lf.severity)) lf.severity = f.severity;
    if (i < lf.message_from) {
      lf.message_from = i;
      lf.message = f.message;
      lf.layer = f.layer;
    }
  }
  if (!x.first_failing_layer.empty()) loc.first_failing[x.first_failing_layer].push_back(i);
}

void work(Shared& sh, Local& loc) {
  ReportFile file;
  Extractor extractor;
  Extract x;
  const std::size_t n = sh.files.size();
  for (;;) {
    std::size_t begin = sh.next.fetch_add(kChunk);
    if (begin >= n) return;
    for (std::size_t idx = begin; idx < std::min(n, begin + kChunk); ++idx) {
      auto i = static_cast<std::uint32_t>(idx);
      const std::string& path = sh.files[idx];
      std::string why = file.read(path);
      if (why.empty()) why = extractor.extract(file.data(), file.size(), file.capacity(), x);
      if (why.empty()) {
        const Cached& c = lookup(sh, loc, x.projection);
        why = c.bad;
        if (why.empty()) sh.entry_of[idx] = c.entry;
      }
      if (!why.empty()) {
        loc.unreadable.emplace_back(i, std::move(why));
        continue;
      }
      sh.by_host[idx] = !x.host.empty();
      sh.names[idx] = x.host.empty() ? path : x.host;
      if (!x.diagnosed) ++loc.undiagnosed;
      add_findings(loc, x, i);
    }
  }
}

void merge(FleetResult& r, std::vector<Local>& locals) {
  std::unordered_map<std::string, LocalFinding> findings;
  std::unordered_map<std::string, Members> first;
  std::vector<std::pair<std::uint32_t, std::string>> unreadable;
  for (auto& loc : locals) {
    r.undiagnosed += loc.undiagnosed;
    for (auto& u : loc.unreadable) unreadable.push_back(std::move(u));
    for (auto& [id, lf] : loc.findings) {
      auto& m = findings[id];
      m.members.insert(m.members.end(), lf.members.begin(), lf.members.end());
      m.errors.insert(m.errors.end(), lf.errors.begin(), lf.errors.end());
      if (severity_rank(lf.severity) > severity_rank(m.severity)) m.severity = lf.severity;
      if (lf.message_from < m.message_from) {
        m.message_from = lf.message_from;
        m.message = std::move(lf.message);
        m.layer = std::move(lf.layer);
      }
    }
    for (auto& [layer, members] : loc.first_failing) {
      auto& m = first[layer];
      m.insert(m.end(), members.begin(), members.end());
    }
  }
  std::sort(unreadable.begin(), unreadable.end());
  for (auto& [i, why] : unreadable) r.unreadable.push_back({r.names[i], std::move(why)});
  for (auto& [id, lf] : findings) {
    std::sort(lf.members.begin(), lf.members.end());
    std::sort(lf.errors.begin(), lf.errors.end());
    r.findings.push_back(
        {id, lf.severity, lf.layer, lf.message, std::move(lf.members), std::move(lf.errors)});
  }
  for (auto& [layer, members] : first) {
    std::sort(members.begin(), members.end());
    r.first_failing.push_back({layer, std::move(members)});
  }
}

}  // namespace

FleetResult scan_fleet(const Inputs& inputs, const kb::KnowledgeBase& kb, const FleetOptions& options) {
  auto started = std::chrono::steady_clock::now();
  FleetResult r;
  // Paths that could not even be listed come first, then the files in input order.
  const auto& files = inputs.files;
  r.files = files.size();
  Shared sh{files, StackTable(kb, options.lock), {}, {}, {}, {}, {}, {}, {}};
  sh.entry_of.assign(files.size(), -1);
  sh.names = files;  // replaced by the host name where the report has one
  sh.by_host.assign(files.size(), 0);

  unsigned jobs = options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs =
      static_cast<unsigned>(std::min<std::size_t>(jobs, std::max<std::size_t>(1, files.size() / kChunk + 1)));
  std::vector<Local> locals(jobs);
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < jobs; ++t) threads.emplace_back(work, std::ref(sh), std::ref(locals[t]));
  work(sh, locals[0]);
  for (auto& t : threads) t.join();

  r.names = std::move(sh.names);
  r.named_by_host.assign(sh.by_host.begin(), sh.by_host.end());
  for (const auto& s : inputs.skipped) r.unreadable.push_back(s);
  merge(r, locals);

  r.groups.resize(sh.table.groups.size());
  for (std::size_t g = 0; g < r.groups.size(); ++g) r.groups[g].stack = std::move(sh.table.groups[g]);
  std::vector<DriftItem> drift = std::move(sh.table.drift);
  for (std::size_t i = 0; i < files.size(); ++i) {
    int e = sh.entry_of[i];
    if (e < 0) continue;
    ++r.reports;
    const Entry& entry = sh.entries[static_cast<std::size_t>(e)];
    r.groups[static_cast<std::size_t>(entry.group)].members.push_back(static_cast<std::uint32_t>(i));
    for (int d : entry.drift)
      drift[static_cast<std::size_t>(d)].members.push_back(static_cast<std::uint32_t>(i));
    if (!entry.drift.empty()) r.drifted.push_back(static_cast<std::uint32_t>(i));
  }
  std::erase_if(r.groups, [](const Group& g) { return g.members.empty(); });
  std::erase_if(drift, [](const DriftItem& d) { return d.members.empty(); });
  r.drift = std::move(drift);
  r.lock_checked = options.lock != nullptr;
  r.lock_name = options.lock_name;

  // Each group's error findings, from the nodes where each was an error.
  summarise(r);  // sorts the groups, so group indices are taken after it
  std::vector<int> group_of(files.size(), -1);
  for (std::size_t g = 0; g < r.groups.size(); ++g) {
    for (auto m : r.groups[g].members) group_of[m] = static_cast<int>(g);
  }
  for (const auto& f : r.findings) {
    std::vector<std::size_t> count(r.groups.size(), 0);
    for (auto m : f.errors) {
      if (group_of[m] >= 0) ++count[static_cast<std::size_t>(group_of[m])];
    }
    for (std::size_t g = 0; g < r.groups.size(); ++g) {
      if (count[g]) r.groups[g].errors.emplace_back(f.id, count[g]);
    }
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return r;
}

}  // namespace cudiag::workflow::fleet
