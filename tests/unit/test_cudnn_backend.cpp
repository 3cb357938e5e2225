// The cudnn backend without a GPU: its registration, what it supports, and the search for
// libcudnn.so.9 when nothing is found (a search of the test's own; the process's cuDNN, loaded
// once, is left as it is).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>

#include "backends/backend.hpp"
#include "core/error.hpp"
#include "workloads/attention.hpp"
#ifdef ASSAY_HAVE_CUDA
#include "backends/cudnn_api.hpp"
#endif

using namespace assay;

namespace {

TEST(CudnnBackend, IsRegisteredForAttentionInF16AndBf16) {
  const Backend* b = find_backend("cudnn");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->target(), Target::cuda);
  EXPECT_TRUE(b->supports("attention", DType::f16));
  EXPECT_TRUE(b->supports("attention", DType::bf16));
  EXPECT_FALSE(b->supports("gemm", DType::f16));
  EXPECT_FALSE(b->supports("mlp", DType::bf16));
#ifdef ASSAY_HAVE_CUDA
  EXPECT_FALSE(b->supports("attention", DType::f32));  // no fused fp32 attention in cuDNN
#endif
}

TEST(CudnnBackend, IsEitherUsableWithAVersionOrSaysWhyNotInOneLine) {
  const Backend& b = *find_backend("cudnn");
  const std::string why = b.unavailable_reason();
  if (why.empty()) {
    EXPECT_EQ(b.library_version().rfind("9.", 0), 0u) << b.library_version();
  } else {
    EXPECT_EQ(why.find('\n'), std::string::npos) << why;
    EXPECT_TRUE(b.library_version().empty());
  }
}

TEST(CudnnBackend, F32IsSkippedBeforeAnyDeviceWork) {
  const Backend& b = *find_backend("cudnn");
  const AttentionProblem p(1, 1, 4, 64, false, DType::f32);
  EXPECT_THROW(b.instantiate(p, p.make_inputs(1)), SkipError);
}

#ifdef ASSAY_HAVE_CUDA
std::string make_empty_dir() {
  std::string templ = ::testing::TempDir() + "assay-cudnn-empty-XXXXXX";
  if (!::mkdtemp(templ.data())) return {};
  return templ;
}

TEST(CudnnLibrarySearch, NothingFoundNamesEveryPlaceTried) {
  const std::string dir = make_empty_dir();
  ASSERT_FALSE(dir.empty());
  cudnn::Search s;
  s.soname = "libcudnn_assay_absent.so.9";  // stands for a loader path without cuDNN
  s.dir = dir;
  s.python = {"python3", "-c", "print('" + dir + "')"};  // answers with a folder that lacks it too
  const cudnn::Api a = cudnn::load(s);
  EXPECT_EQ(a.create_descriptor, nullptr);
  EXPECT_EQ(a.error.find('\n'), std::string::npos) << a.error;
  EXPECT_NE(a.error.find("libcudnn_assay_absent.so.9"), std::string::npos) << a.error;
  EXPECT_NE(a.error.find("loader path"), std::string::npos) << a.error;
  EXPECT_NE(a.error.find("ASSAY_CUDNN_LIBRARY_DIR: " + dir), std::string::npos) << a.error;
  EXPECT_NE(a.error.find("python3 (nvidia.cudnn): " + dir + "/lib/"), std::string::npos) << a.error;
  ::rmdir(dir.c_str());
}

TEST(CudnnLibrarySearch, AnUnsetFolderAndAMissingPythonAreNamed) {
  cudnn::Search s;
  s.soname = "libcudnn_assay_absent.so.9";
  s.python = {"/nonexistent/assay-python3", "-c", "pass"};
  const cudnn::Api a = cudnn::load(s);
  EXPECT_NE(a.error.find("ASSAY_CUDNN_LIBRARY_DIR not set"), std::string::npos) << a.error;
  EXPECT_NE(a.error.find("/nonexistent/assay-python3 (nvidia.cudnn): "), std::string::npos) << a.error;
}

TEST(CudnnLibrarySearch, DefaultSearchReadsTheEnvironmentAndAsksPython) {
  const char* old = std::getenv("ASSAY_CUDNN_LIBRARY_DIR");
  const std::string saved = old ? old : "";
  ::setenv("ASSAY_CUDNN_LIBRARY_DIR", "/opt/some/cudnn/lib", 1);
  const cudnn::Search s = cudnn::default_search();
  if (old) ::setenv("ASSAY_CUDNN_LIBRARY_DIR", saved.c_str(), 1);
  else ::unsetenv("ASSAY_CUDNN_LIBRARY_DIR");
  EXPECT_EQ(s.soname, "libcudnn.so.9");
  EXPECT_EQ(s.dir, "/opt/some/cudnn/lib");
  ASSERT_FALSE(s.python.empty());
  EXPECT_EQ(s.python[0], "python3");
}

TEST(CudnnLibrarySearch, VersionNumbersReadAsMajorMinorPatch) {
  EXPECT_EQ(cudnn::version_string(91900), "9.19.0");
  EXPECT_EQ(cudnn::version_string(90102), "9.1.2");
}
#endif

}  // namespace
