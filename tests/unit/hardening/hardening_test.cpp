// Unit tests of the hardening (#17) building blocks: the output writer's
// redaction and terminal escaping, -o write-through and safe temporaries,
// bounded and depth-limited untrusted input, --root confinement and the
// bound on concurrent children. The end-to-end cases (every command, every
// format, signals) are in tests/hostile/hostile_suite.py.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/atomic_file.h"
#include "core/bounded_input.h"
#include "core/errors.h"
#include "core/fsroot.h"
#include "core/subprocess.h"
#include "render/output.h"
#include "render/redact.h"

namespace cudiag {
namespace {

namespace fs = std::filesystem;

// Redaction remembers every secret it has seen in the process (a CLI run is
// one process); each test starts with none, so tests cannot see each other's.
class ForgetLearntSecrets : public ::testing::EmptyTestEventListener {
  void OnTestStart(const ::testing::TestInfo&) override { render::forget_learned_secrets(); }
};
const bool kForgetInstalled = [] {
  ::testing::UnitTest::GetInstance()->listeners().Append(new ForgetLearntSecrets);
  return true;
}();

class TempDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cudiag_hardening_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  static std::string slurp(const std::string& p) {
    std::ifstream in(p);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  fs::path dir_;
};

// --- redaction shapes --------------------------------------------------------

TEST(HardeningRedact, ShapesFromSecretScannerRuleSets) {
  for (std::string s :
       {"AIzaSyD3mOnlyAFakeKeyForTests0123456789x", "sk_live_51FakeStripeKey0123456789abcdefXYZ",
        "hvs.CAESIFakeVaultToken0123456789abcdefgh", "GOCSPX-FakeGoogleClientSecret01234",
        "SG.FakeSendGridKey012345.abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ"}) {
    auto out = render::redact_secrets("key in a path /opt/" + s + "/lib");
    EXPECT_EQ(out.find(s.substr(6)), std::string::npos) << s << " -> " << out;
    EXPECT_NE(out.find("<redacted>"), std::string::npos) << out;
  }
}

TEST(HardeningRedact, UserinfoWithoutDoubleSlash) {
  // The password is a secret, the user before it identity: both go.
  EXPECT_EQ(render::redact_secrets("/srv/deploy:Hunter2Pass@nas/lib"), "/srv/<redacted>:<redacted>@nas/lib");
  EXPECT_EQ(render::redact_secrets("https:/builder:S3cret@mirror.example.com/x"),
            "https:/<redacted>:<redacted>@mirror.example.com/x");
  // Two path-list entries, an scp-style remote and an image digest are not credentials.
  EXPECT_EQ(render::redact_secrets("/a/lib:/b/x@y/lib"), "/a/lib:/b/x@y/lib");
  EXPECT_EQ(render::redact_secrets("git@github.com:org/repo.git"), "git@github.com:org/repo.git");
  EXPECT_EQ(render::redact_secrets("nvcr.io/nvidia/pytorch@sha256:0123abcd"),
            "nvcr.io/nvidia/pytorch@sha256:0123abcd");
}

TEST(HardeningRedact, PrivateKeyBlockGoesTheRestStays) {
  std::string doc =
      "before\n-----BEGIN RSA PRIVATE KEY-----\nMIIEFakeKeyMaterial\n-----END RSA PRIVATE KEY-----\nafter";
  auto out = render::redact_secrets(doc);
  EXPECT_EQ(out.find("MIIEFakeKeyMaterial"), std::string::npos);
  EXPECT_NE(out.find("before"), std::string::npos);
  EXPECT_NE(out.find("after"), std::string::npos);
}

TEST(HardeningRedact, PiecesOfALearntSecretAreRedactedWhereverTheyReappear) {
  render::forget_learned_secrets();
  // LD_LIBRARY_PATH "https://ci:UrlPassw0rd@host/lib" is split into search directories by the probe.
  (void)render::redact_secrets("https://ci:UrlPassw0rd@pypi.example.com/lib");
  EXPECT_EQ(render::redact_secrets("UrlPassw0rd@pypi.example.com/lib").find("UrlPassw0rd"),
            std::string::npos);
  render::forget_learned_secrets();
}

TEST(HardeningRedact, ValueUnderASecretKeyInAJsonDocument) {
  Json doc = {{"api_token", "plain-looking-value"}, {"key", "driver"}, {"note", "fine"}};
  auto out = render::redact_report(doc, render::RedactOptions{});
  EXPECT_EQ(out["api_token"], "<redacted>");
  EXPECT_EQ(out["key"], "driver");  // cudiag's own "key" fields are names, not secrets
  EXPECT_EQ(out["note"], "fine");
}

// --- the writer ---------------------------------------------------------------

TEST(HardeningOutput, TextOutputEscapesControlCharactersAndInvalidUtf8) {
  std::string evil =
      "dir \x1b]0;title\x07 \x1b[2J \xc2\x9b"
      "31m \xff ok\ttab\n";
  auto out = render::escape_terminal(evil);
  for (char c : {'\x1b', '\x07'}) EXPECT_EQ(out.find(c), std::string::npos);
  EXPECT_EQ(out.find("\xc2\x9b"), std::string::npos);
  EXPECT_EQ(out.find('\xff'), std::string::npos);
  EXPECT_NE(out.find("\\x1b]0;title\\x07"), std::string::npos) << out;
  EXPECT_NE(out.find("ok\ttab\n"), std::string::npos);
  // cudiag's own colour survives only when asked for, and only SGR.
  EXPECT_EQ(render::escape_terminal("\x1b[1;31mred\x1b[0m", true), "\x1b[1;31mred\x1b[0m");
  EXPECT_EQ(render::escape_terminal("\x1b[1;31mred", false).find('\x1b'), std::string::npos);
  EXPECT_EQ(render::escape_terminal("\x1b]0;x\x07", true).find('\x1b'), std::string::npos);
  EXPECT_EQ(render::escape_terminal("✓ valid UTF-8"), "✓ valid UTF-8");
}

TEST(HardeningOutput, JsonOutputStaysValidJsonAndIsRedacted) {
  render::OutputOptions o;
  auto out =
      render::prepare_output(R"({"token_count": 5, "path": "/x/ghp_R4nd0mT0k3nV4lu3F0rT3st1ng0000abcd"})"
                             "\n",
                             render::OutputKind::kJson, o);
  auto doc = Json::parse(out);
  EXPECT_EQ(doc["token_count"], 5);  // not a string: left alone, the document stays valid
  EXPECT_EQ(doc["path"].get<std::string>().find("R4nd0m"), std::string::npos);
}

// --- -o and temporaries --------------------------------------------------------

TEST_F(TempDir, ReplacingAFileKeepsItsModeAndLeavesNoTemporary) {
  auto p = path("out.json");
  std::ofstream(p) << "old";
  ASSERT_EQ(::chmod(p.c_str(), 0600), 0);
  write_output_file(p, "new\n");
  struct stat st {};
  ASSERT_EQ(::stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(slurp(p), "new\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}

TEST_F(TempDir, FifoIsWrittenThroughNotReplaced) {
  auto p = path("fifo");
  ASSERT_EQ(::mkfifo(p.c_str(), 0600), 0);
  // A reader on the other end, opened without blocking first.
  int rd = ::open(p.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(rd, 0);
  write_output_file(p, "through\n");
  char buf[32] = {};
  auto n = ::read(rd, buf, sizeof buf);
  ::close(rd);
  EXPECT_EQ(std::string(buf, n > 0 ? static_cast<std::size_t>(n) : 0), "through\n");
  struct stat st {};
  ASSERT_EQ(::lstat(p.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));
}

TEST_F(TempDir, SymlinkToARegularFileReplacesTheFileAndKeepsTheLink) {
  auto target = path("target");
  std::ofstream(target) << "old";
  auto link = path("link");
  fs::create_symlink(target, link);
  write_output_file(link, "new");
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(slurp(target), "new");
}

TEST_F(TempDir, DirectoryIsAnError) {
  EXPECT_THROW(write_output_file(dir_.string(), "x"), InputError);
  EXPECT_THROW(write_file_atomically(dir_.string(), "x"), InputError);
}

TEST_F(TempDir, DevNullStaysADevice) {
  auto link = path("null");
  fs::create_symlink("/dev/null", link);
  write_output_file(link, "discarded");
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

// --- bounded input ---------------------------------------------------------------

TEST(HardeningInput, JsonDepthDuplicatesAndNumbersAreInputErrors) {
  EXPECT_THROW(parse_untrusted_json(std::string(30000, '['), "deep"), InputError);
  EXPECT_THROW(parse_untrusted_json(R"({"a": 1, "a": 2})", "dup"), InputError);
  EXPECT_THROW(parse_untrusted_json(R"({"a": 1e999999})", "exp"), InputError);
  EXPECT_THROW(parse_untrusted_json(R"({"a": )" + std::string(400, '9') + "}", "int"), InputError);
  try {
    parse_untrusted_json(std::string(200, '[') + std::string(200, ']'), "x.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("x.json: not valid JSON: nested deeper than 128 levels"),
              std::string::npos)
        << e.what();
  }
  // Same key in two different objects is fine; a real depth is fine.
  auto ok = parse_untrusted_json(R"({"a": {"k": 1}, "b": {"k": 2}, "c": [[[[1]]]]})", "ok");
  EXPECT_EQ(ok["b"]["k"], 2);
}

TEST_F(TempDir, DevZeroAndFifosAreRefusedBeforeReading) {
  EXPECT_THROW(read_input_bytes("/dev/zero"), InputError);
  auto fifo = path("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(read_input_bytes(fifo, kMaxInputBytes, PipeInput::kRefused), InputError);
  std::string out, why;
  EXPECT_FALSE(read_regular_file(fifo, 1 << 20, out, why));
  EXPECT_EQ(why, "is a FIFO, not a file");
  auto link = path("zero");
  fs::create_symlink("/dev/zero", link);
  EXPECT_FALSE(read_regular_file(link, 1 << 20, out, why));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  auto big = path("big");
  { std::ofstream(big) << std::string(2000, 'x'); }
  EXPECT_THROW(read_input_bytes(big, 1000), InputError);
}

// --- --root confinement ----------------------------------------------------------

TEST_F(TempDir, RootNeverFollowsALinkWhoseTargetIsMissingOutOfTheRoot) {
  // On the host, /tmp/<dir>/host/secret exists; inside the root the link's target does not.
  fs::create_directories(dir_ / "host");
  std::ofstream(dir_ / "host/secret") << "HOST";
  fs::create_directories(dir_ / "root/etc");
  fs::create_symlink((dir_ / "host/secret").string(), dir_ / "root/etc/os-release");
  fs::create_symlink("../../../../../../../../" + (dir_ / "host/secret").relative_path().string(),
                     dir_ / "root/etc/relative");
  fs::create_symlink((dir_ / "host").string(), dir_ / "root/etc/dir");
  FsRoot root((dir_ / "root").string());
  for (const char* p : {"/etc/os-release", "/etc/relative", "/etc/dir/secret"}) {
    auto r = root.read_file(p);
    EXPECT_FALSE(r) << p << " read the host's file";
    EXPECT_EQ(root.list_dir("/etc/dir").size(), 0u);
  }
}

// --- children ----------------------------------------------------------------------

TEST(HardeningChildren, AtMostAFewPerCoreRunAtOnce) {
  std::vector<ChildSpec> specs(3 * max_running_children(), ChildSpec{{"/bin/sh", "-c", "sleep 0.2"}, {}});
  auto start = std::chrono::steady_clock::now();
  auto out = run_children(specs, std::chrono::seconds(20));
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(out.size(), specs.size());
  for (const auto& o : out) EXPECT_EQ(o.status, ChildOutcome::Status::kExited);
  // Three waves of 0.2 s at least: they queued rather than all starting at once.
  EXPECT_GE(s, 0.55);
}

}  // namespace
}  // namespace cudiag
