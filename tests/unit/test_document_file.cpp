// Results documents read from xz-compressed files, as the records under bench/results are
// committed: the reader, and the commands' loaders (a file, a folder) on such files.
#include <gtest/gtest.h>
#include <lzma.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include "compare_test_docs.hpp"
#include "core/atomic_file.hpp"
#include "core/error.hpp"
#include "runner/merge.hpp"
#include "store/document_file.hpp"
#include "store/run_set.hpp"

namespace assay {
namespace {

namespace fs = std::filesystem;

std::string xz(const std::string& text) {
  std::string out(lzma_stream_buffer_bound(text.size()), '\0');
  std::size_t pos = 0;
  const lzma_ret r = lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, nullptr, reinterpret_cast<const std::uint8_t*>(text.data()),
                                             text.size(), reinterpret_cast<std::uint8_t*>(out.data()), &pos, out.size());
  EXPECT_EQ(r, LZMA_OK);
  out.resize(pos);
  return out;
}

std::string error_of(const fs::path& p) {
  try {
    store::read_document_text(p);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

ResultsDocument a_doc(const std::string& started = "2026-11-27T12:00:00Z") {
  ResultsDocument d = test::doc_on(test::kH100, {test::ok_case("b", "assay", 1024, {100, 101, 102, 103, 104})}, "t1");
  d.run.started_utc = started;
  return d;
}

TEST(DocumentFile, PlainAndCompressedReadTheSame) {
  const fs::path d = test::fresh_test_dir("docfile-same");
  const std::string text = to_json_text(a_doc());
  write_file_atomically(d / "a.json", text);
  write_file_atomically(d / "a.json.xz", xz(text));
  EXPECT_EQ(store::read_document_text(d / "a.json"), text);
  EXPECT_EQ(store::read_document_text(d / "a.json.xz"), text);
  // By its bytes, not its name: a compressed file named *.json is read as well.
  write_file_atomically(d / "b.json", xz(text));
  EXPECT_EQ(store::read_document_text(d / "b.json"), text);
  // Two streams in one file (`xz` may write them) are one document.
  const std::string half = text.substr(0, text.size() / 2);
  write_file_atomically(d / "c.json.xz", xz(half) + xz(text.substr(half.size())));
  EXPECT_EQ(store::read_document_text(d / "c.json.xz"), text);
  fs::remove_all(d);
}

TEST(DocumentFile, BadCompressedFilesNameTheFileAndTheFault) {
  const fs::path d = test::fresh_test_dir("docfile-bad");
  const std::string packed = xz(to_json_text(a_doc()));
  write_file_atomically(d / "cut.json.xz", packed.substr(0, packed.size() / 2));
  std::string corrupt = packed;
  corrupt[corrupt.size() / 2] = static_cast<char>(corrupt[corrupt.size() / 2] ^ 0x55);
  write_file_atomically(d / "corrupt.json.xz", corrupt);
  write_file_atomically(d / "magic.json.xz", packed.substr(0, 6));

  const std::string cut = error_of(d / "cut.json.xz");
  EXPECT_NE(cut.find((d / "cut.json.xz").string()), std::string::npos) << cut;
  EXPECT_NE(cut.find("truncated"), std::string::npos) << cut;
  const std::string bad = error_of(d / "corrupt.json.xz");
  EXPECT_NE(bad.find("corrupt.json.xz: xz: "), std::string::npos) << bad;
  EXPECT_NE(error_of(d / "magic.json.xz").find("xz: truncated"), std::string::npos);
  EXPECT_NE(error_of(d / "missing.json.xz").find("cannot open"), std::string::npos);
  fs::remove_all(d);
}

// A record's folder as committed: two sessions, one compressed, one not, and the summary of
// sessions compressed (skipped by both loaders); a note that is no document is passed over.
TEST(DocumentFile, TheLoadersTakeCompressedFilesAndFolders) {
  const fs::path d = test::fresh_test_dir("docfile-load");
  const std::string text = to_json_text(a_doc());
  fs::create_directories(d / "record");
  write_file_atomically(d / "record" / "s1.json.xz", xz(text));
  write_file_atomically(d / "record" / "s2.json", to_json_text(a_doc("2026-11-27T12:05:00Z")));
  write_file_atomically(d / "record" / "sessions.json.xz",
                        xz(std::string("{\"schema\": \"") + store::kSessionsSchemaName + "\", \"cases\": []}"));
  write_file_atomically(d / "record" / "notes.txt", "not a document");

  const store::RunSet file = store::load_run_set((d / "record" / "s1.json.xz").string(), (d / "none.db").string());
  ASSERT_EQ(file.sessions.size(), 1u);
  EXPECT_EQ(to_json_text(file.sessions.front()), text);
  const store::RunSet folder = store::load_run_set((d / "record").string(), (d / "none.db").string());
  EXPECT_EQ(folder.sessions.size(), 2u) << folder.origin;
  EXPECT_EQ(runner::load_documents({(d / "record").string()}).size(), 2u);
  fs::remove_all(d);
}

// The summary of sessions is known by its schema, not its name, by both loaders: renamed, it is
// still skipped in a folder; named on the command line, merge and sessions refuse it with one line
// (it is no session), and a folder holding only summaries has no results file.
TEST(DocumentFile, ASessionsSummaryIsKnownByItsSchema) {
  const fs::path d = test::fresh_test_dir("docfile-summary");
  const std::string summary = std::string("{\"schema\": \"") + store::kSessionsSchemaName + "\", \"cases\": []}";
  fs::create_directories(d / "record");
  write_file_atomically(d / "record" / "s1.json", to_json_text(a_doc()));
  write_file_atomically(d / "record" / "summary-of-x3.json.xz", xz(summary));
  EXPECT_EQ(runner::load_documents({(d / "record").string()}).size(), 1u);
  EXPECT_EQ(store::load_run_set((d / "record").string(), (d / "none.db").string()).sessions.size(), 1u);
  try {
    runner::load_documents({(d / "record" / "summary-of-x3.json.xz").string()});
    ADD_FAILURE() << "a sessions summary was taken as a session";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("summary-of-x3.json.xz: a sessions summary"), std::string::npos) << what;
  }
  // A schema of another type is no summary, and the document's error names the file (no internal error).
  fs::create_directories(d / "odd");
  write_file_atomically(d / "odd" / "s.json", "{\"schema\": 3, \"cases\": []}");
  EXPECT_THROW(runner::load_documents({(d / "odd").string()}), InputError);
  EXPECT_THROW(store::load_run_set((d / "odd").string(), (d / "none.db").string()), InputError);
  fs::create_directories(d / "only");
  write_file_atomically(d / "only" / "sessions.json", summary);
  try {
    runner::load_documents({(d / "only").string()});
    ADD_FAILURE() << "a folder of summaries gave documents";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no results file"), std::string::npos) << e.what();
  }
  fs::remove_all(d);
}

// `xz -dk` keeps the compressed file beside the one it writes: the same session twice, which
// would count twice in the comparison, is refused with both names.
TEST(DocumentFile, OneSessionInTwoFilesIsRefused) {
  const fs::path d = test::fresh_test_dir("docfile-twice");
  const std::string text = to_json_text(a_doc());
  write_file_atomically(d / "s1.json", text);
  write_file_atomically(d / "s1.json.xz", xz(text));
  try {
    store::load_run_set(d.string(), (d / "none.db").string());
    ADD_FAILURE() << "the same session twice was taken";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("s1.json.xz and "), std::string::npos) << what;
    EXPECT_NE(what.find("are the same session"), std::string::npos) << what;
  }
  fs::remove_all(d);
}

TEST(DocumentFile, DocumentNames) {
  EXPECT_TRUE(store::has_document_name("x/a.json"));
  EXPECT_TRUE(store::has_document_name("x/a.json.xz"));
  EXPECT_FALSE(store::has_document_name("x/a.xz"));
  EXPECT_FALSE(store::has_document_name("x/a.json.gz"));
  EXPECT_FALSE(store::has_document_name("x/.json"));
  EXPECT_FALSE(store::has_document_name("x/notes.txt"));
}

}  // namespace
}  // namespace assay
