// Builders for error_codes, forward_compat, library_sonames and version_encodings.
#include <fmt/format.h>

#include <set>

#include "core/errors.h"
#include "kb/builders.h"
#include "kb/records.h"

namespace cudiag::kb {

namespace {

std::vector<ErrorRef> read_error_refs(const EntryReader& e) {
  std::vector<ErrorRef> out;
  for (auto& ref : e.objects("errors")) out.push_back({ref.str("api"), ref.integer("code")});
  return out;
}
}  // namespace

void build_error_codes(const TableContext& t, KnowledgeBase::Data& d) {
  std::set<std::pair<std::string, long>> codes;
  std::set<std::string> names;
  std::set<long> legacy;
  for (auto& e : table_array(t, "entries")) {
    ErrorCode c;
    c.api = e.str("api");
    c.code = e.integer("code");
    c.name = e.str("name");
    e.name_entry(c.name);
    static_cast<Provenance&>(c) = e.provenance();
    c.meaning = e.str("meaning");
    c.layer = e.str_or("layer", "");
    c.message = e.str_or("message", "");
    c.legacy_code = e.opt_integer("legacy_code");
    if (c.legacy_code && c.api != "runtime") e.fail("legacy_code: only runtime errors were renumbered");
    if (c.legacy_code && !legacy.insert(*c.legacy_code).second)
      e.fail(fmt::format("duplicate legacy_code {}", *c.legacy_code));
    const ErrorApi* api = error_api(c.api);
    if (!api) e.fail(fmt::format("api: expected {}", error_api_names()));
    if (!c.name.starts_with(api->prefix)) e.fail(fmt::format("name does not look like a {} API name", c.api));
    if (!codes.insert({c.api, c.code}).second) e.fail(fmt::format("duplicate {} code {}", c.api, c.code));
    if (!names.insert(c.name).second) e.fail("duplicate name");
    d.errors.push_back(std::move(c));
  }
}

void build_forward_compat(const TableContext& t, KnowledgeBase::Data& d) {
  auto& f = d.fwd;
  const Json& doc = *t.doc;
  auto header = [&](const char* key) {
    if (!doc.contains(key) || !doc[key].is_string() || doc[key].get<std::string>().empty())
      throw InputError(fmt::format("{}: missing {}", t.file, key));
    return doc[key].get<std::string>();
  };
  auto introduced = Version::parse(header("introduced_in"));
  if (!introduced) throw InputError(t.file + ": introduced_in: not a version");
  f.introduced_in = *introduced;
  f.os = header("os");
  f.package = header("package");
  f.location = header("location");
  for (auto& e : table_array(t, "gpu_classes")) {
    CompatGpuClass c;
    c.id = e.str("id");
    static_cast<Provenance&>(c) = e.provenance();
    c.text = e.str("text");
    f.gpu_classes.push_back(std::move(c));
  }
  for (auto& e : table_array(t, "entries")) {
    CompatRelease r;
    r.compat_driver = e.version("compat_driver");
    e.name_entry(r.compat_driver.text());
    static_cast<Provenance&>(r) = e.provenance();
    r.cuda = e.version("cuda");
    r.package = e.str("package");
    r.host_branches = e.integers("host_branches");
    r.device_field = e.integers("device_field");
    if (r.host_branches.empty()) e.fail("host_branches: empty");
    for (long b : r.host_branches) {
      if (b > r.compat_driver.major())
        e.fail(fmt::format("host branch {} is newer than the compat driver", b));
    }
    if (!f.releases.empty() && !(f.releases.back().compat_driver < r.compat_driver))
      e.fail("out of order or duplicate");
    f.releases.push_back(std::move(r));
  }
  for (auto& e : table_array(t, "image_branches")) {
    ImageBranches b;
    static_cast<Provenance&>(b) = e.provenance();
    b.first_image = e.version("first_image");
    b.last_image = e.version("last_image");
    b.branches = e.integers("branches");
    if (b.last_image < b.first_image) e.fail("last_image is before first_image");
    if (!f.image_branches.empty() && !(f.image_branches.back().last_image < b.first_image))
      e.fail("overlaps the previous range");
    f.image_branches.push_back(std::move(b));
  }
  std::set<std::string> ids;
  for (auto& e : table_array(t, "rules")) {
    CompatRule r;
    r.id = e.str("id");
    e.name_entry(r.id);
    static_cast<Provenance&>(r) = e.provenance();
    r.text = e.str("text");
    r.errors = read_error_refs(e);
    if (!ids.insert(r.id).second) e.fail("duplicate id");
    f.rules.push_back(std::move(r));
  }
}

void build_library_sonames(const TableContext& t, KnowledgeBase::Data& d) {
  std::set<std::pair<std::string, long>> keys;
  for (auto& e : table_array(t, "entries")) {
    Library l;
    l.library = e.str("library");
    l.cuda_major = e.integer("cuda_major");
    e.name_entry(fmt::format("{} {}", l.library, l.cuda_major));
    static_cast<Provenance&>(l) = e.provenance();
    l.linux_sonames = e.strings("linux");
    l.windows_dlls = e.strings("windows");
    if (l.linux_sonames.empty()) e.fail("linux: empty");
    for (const auto& so : l.linux_sonames) {
      if (so.rfind("lib", 0) != 0 || so.find(".so.") == std::string::npos)
        e.fail(fmt::format("'{}' is not a versioned soname", so));
    }
    if (!keys.insert({l.library, l.cuda_major}).second) e.fail("duplicate library and cuda_major");
    d.libraries.push_back(std::move(l));
  }
}

void build_version_encodings(const TableContext& t, KnowledgeBase::Data& d) {
  for (auto& e : table_array(t, "entries")) {
    VersionEncoding v;
    v.library = e.str("library");
    e.name_entry(v.library);
    static_cast<Provenance&>(v) = e.provenance();
    v.applies_to = e.str("applies_to");
    v.formula = e.str("formula");
    v.code_min = e.integer("code_min");
    v.code_max = e.opt_integer("code_max");
    v.weights = e.integers("weights");
    if (v.weights.empty()) e.fail("weights: empty");
    for (std::size_t i = 0; i < v.weights.size(); ++i) {
      if (v.weights[i] <= 0 || (i > 0 && v.weights[i - 1] % v.weights[i] != 0))
        e.fail("weights: each must be positive and divide the one before");
    }
    if (v.code_max && *v.code_max < v.code_min) e.fail("code_max is below code_min");
    for (const auto& other : d.encodings) {
      if (other.library != v.library) continue;
      bool disjoint =
          (other.code_max && *other.code_max < v.code_min) || (v.code_max && *v.code_max < other.code_min);
      if (!disjoint) e.fail("code range overlaps another encoding of the same library");
    }
    // The example is the test of the formula: it must decode as written.
    auto ex = e.object("example");
    if (!ex) e.fail("missing example");
    long code = ex->integer("code");
    Version want = ex->version("version");
    if (!v.covers(code)) ex->fail("code is outside code_min..code_max");
    if (v.decode(code) != want)
      ex->fail(fmt::format("{} decodes to {}, not {}", code, v.decode(code).text(), want.text()));
    d.encodings.push_back(std::move(v));
  }
}

}  // namespace cudiag::kb
