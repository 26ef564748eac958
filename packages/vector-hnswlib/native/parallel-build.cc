// Parallel HNSW construction for @zerda/vector-hnswlib.
//
// A thin helper around hnswlib's own HierarchicalNSW (the headers shipped inside the installed
// hnswlib-node package, included by binding.gyp, never copied here): it starts from an empty graph
// or from a graph file written by hnswlib-node's `writeIndex`, inserts a batch with `addPoint` from
// several std::threads (hnswlib's addPoint is thread-safe; the first point of an empty graph is
// inserted alone, as hnswlib's Python bindings do), and `saveIndex`es the result where hnswlib-node's
// `readIndex` loads it. Spaces follow hnswlib-node exactly: `l2` is L2Space, `ip` InnerProductSpace,
// `cosine` InnerProductSpace over vectors normalised the way hnswlib-node's addPoint normalises them.
//
// The work runs as napi async work: the JavaScript thread only parses the arguments and settles the
// promise; the build threads never call into JavaScript. The vectors, labels and flags are read in
// place from the caller's typed arrays, which stay referenced until the work completes.
#include <node_api.h>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <cerrno>
#include <fcntl.h>
#include <unistd.h>
#endif

#include "hnswlib.h"

namespace {

// hnswlib-node's normalizePoint, operation for operation (same float accumulation, same division),
// so that a cosine graph built here stores the very vectors hnswlib-node would have stored.
void normalizePoint(std::vector<float>& vec) {
  const size_t dim = vec.size();
  const float norm = std::sqrt(std::fabs(std::inner_product(vec.begin(), vec.end(), vec.begin(), 0.0f)));
  if (norm > 0.0f) {
    for (size_t i = 0; i < dim; i++) vec[i] /= norm;
  }
}

struct BuildJob {
  napi_async_work work = nullptr;
  napi_deferred deferred = nullptr;
  napi_ref vectorsRef = nullptr;
  napi_ref labelsRef = nullptr;
  napi_ref flagsRef = nullptr;

  // Inputs (read-only while the work runs).
  std::string space;
  size_t dimensions = 0;
  size_t M = 0;
  size_t efConstruction = 0;
  size_t randomSeed = 0;
  size_t maxElements = 0;
  size_t threads = 1;
  std::string input;   // empty: start from an empty graph
  std::string output;
  const float* vectors = nullptr;
  const uint32_t* labels = nullptr;
  const uint8_t* replaceDeleted = nullptr;  // may be null: no row reuses a deleted slot
  size_t count = 0;

  // Results.
  std::string error;
  size_t resultCount = 0;
  size_t resultMaxElements = 0;
  size_t threadsUsed = 0;
};

void Execute(napi_env /*env*/, void* data) {
  BuildJob* job = static_cast<BuildJob*>(data);
  try {
    std::unique_ptr<hnswlib::SpaceInterface<float>> space;
    if (job->space == "l2") {
      space.reset(new hnswlib::L2Space(job->dimensions));
    } else {
      space.reset(new hnswlib::InnerProductSpace(job->dimensions));
    }
    const bool normalize = job->space == "cosine";

    std::unique_ptr<hnswlib::HierarchicalNSW<float>> index;
    if (job->input.empty()) {
      index.reset(new hnswlib::HierarchicalNSW<float>(space.get(), job->maxElements, job->M, job->efConstruction, job->randomSeed, true));
    } else {
      index.reset(new hnswlib::HierarchicalNSW<float>(space.get(), job->input, false, job->maxElements, true));
      if (index->data_size_ != space->get_data_size() || index->label_offset_ - index->offsetData_ != space->get_data_size()) {
        throw std::runtime_error("the graph to extend has another dimension");
      }
      if (index->M_ != job->M) throw std::runtime_error("the graph to extend has another M");
      if (index->getMaxElements() < job->maxElements) throw std::runtime_error("the graph to extend could not be grown");
      // A loaded graph's level generator restarts from its default seed; continue from the store's
      // seed instead, varied by the graph's size so that successive batches draw different levels.
      index->level_generator_.seed(job->randomSeed + index->getCurrentElementCount());
    }

    const size_t dimensions = job->dimensions;
    auto insert = [&](size_t row, std::vector<float>& buffer) {
      const float* point = job->vectors + row * dimensions;
      if (normalize) {
        std::memcpy(buffer.data(), point, dimensions * sizeof(float));
        normalizePoint(buffer);
        point = buffer.data();
      }
      const bool replace = job->replaceDeleted != nullptr && job->replaceDeleted[row] != 0;
      index->addPoint(point, static_cast<hnswlib::labeltype>(job->labels[row]), replace);
    };

    size_t start = 0;
    if (job->count > 0 && index->getCurrentElementCount() == 0) {
      // The first point of an empty graph becomes its entry point: insert it alone.
      std::vector<float> buffer(normalize ? dimensions : 0);
      insert(0, buffer);
      start = 1;
    }

    std::atomic<size_t> next(start);
    std::atomic<bool> failed(false);
    std::mutex errorLock;
    std::string firstError;
    auto fail = [&](const char* message) {
      std::lock_guard<std::mutex> guard(errorLock);
      if (firstError.empty()) firstError = message;
      failed.store(true);
    };
    // Never throws: an exception anywhere in a worker (its buffer's allocation included) is recorded
    // and stops every worker, so a helper thread cannot terminate the process and the calling thread
    // always reaches the joins below.
    auto work = [&]() {
      try {
        std::vector<float> buffer(normalize ? dimensions : 0);
        for (;;) {
          if (failed.load(std::memory_order_relaxed)) return;
          const size_t row = next.fetch_add(1);
          if (row >= job->count) return;
          insert(row, buffer);
        }
      } catch (const std::exception& e) {
        fail(e.what());
      } catch (...) {
        fail("unknown error while inserting");
      }
    };

    const size_t remaining = job->count - start;
    const size_t wanted = std::max<size_t>(1, std::min(job->threads, remaining));
    std::vector<std::thread> helpers;
    helpers.reserve(wanted - 1);
    for (size_t i = 1; i < wanted; i++) {
      try {
        helpers.emplace_back(work);
      } catch (const std::exception&) {
        break;  // fewer threads than asked (resource limits): the ones started still finish the batch
      }
    }
    job->threadsUsed = helpers.size() + 1;
    work();  // this thread is one of the workers
    for (std::thread& helper : helpers) helper.join();
    if (failed.load()) throw std::runtime_error(firstError);

    index->saveIndex(job->output);
    job->resultCount = index->getCurrentElementCount();
    job->resultMaxElements = index->getMaxElements();
  } catch (const std::exception& e) {
    job->error = e.what();
    if (job->error.empty()) job->error = "unknown error";
  } catch (...) {
    job->error = "unknown error";
  }
}

void SetNumber(napi_env env, napi_value object, const char* name, double value) {
  napi_value number;
  napi_create_double(env, value, &number);
  napi_set_named_property(env, object, name, number);
}

void Complete(napi_env env, napi_status /*status*/, void* data) {
  BuildJob* job = static_cast<BuildJob*>(data);
  if (job->vectorsRef) napi_delete_reference(env, job->vectorsRef);
  if (job->labelsRef) napi_delete_reference(env, job->labelsRef);
  if (job->flagsRef) napi_delete_reference(env, job->flagsRef);
  if (job->error.empty()) {
    napi_value result;
    napi_create_object(env, &result);
    SetNumber(env, result, "count", static_cast<double>(job->resultCount));
    SetNumber(env, result, "maxElements", static_cast<double>(job->resultMaxElements));
    SetNumber(env, result, "threads", static_cast<double>(job->threadsUsed));
    napi_resolve_deferred(env, job->deferred, result);
  } else {
    napi_value message;
    napi_value error;
    const std::string text = "hnswlib: " + job->error;
    napi_create_string_utf8(env, text.c_str(), text.size(), &message);
    napi_create_error(env, nullptr, message, &error);
    napi_reject_deferred(env, job->deferred, error);
  }
  napi_delete_async_work(env, job->work);
  delete job;
}

napi_value Throw(napi_env env, const std::string& message) {
  napi_throw_type_error(env, nullptr, message.c_str());
  return nullptr;
}

bool Property(napi_env env, napi_value object, const char* name, napi_value* value) {
  bool has = false;
  napi_has_named_property(env, object, name, &has);
  if (!has) return false;
  napi_get_named_property(env, object, name, value);
  napi_valuetype type;
  napi_typeof(env, *value, &type);
  return type != napi_undefined;
}

bool SizeProperty(napi_env env, napi_value object, const char* name, size_t minimum, size_t* out) {
  napi_value value;
  if (!Property(env, object, name, &value)) return false;
  double number;
  if (napi_get_value_double(env, value, &number) != napi_ok) return false;
  if (!(number >= static_cast<double>(minimum)) || number > 4294967295.0 || std::floor(number) != number) return false;
  *out = static_cast<size_t>(number);
  return true;
}

bool StringProperty(napi_env env, napi_value object, const char* name, std::string* out) {
  napi_value value;
  if (!Property(env, object, name, &value)) return false;
  size_t length;
  if (napi_get_value_string_utf8(env, value, nullptr, 0, &length) != napi_ok) return false;
  std::string text(length, '\0');
  napi_get_value_string_utf8(env, value, &text[0], length + 1, &length);
  *out = text;
  return true;
}

// A typed array property of the expected type; its data pointer and element count, and a reference
// that keeps it alive while the work runs.
bool TypedArrayProperty(napi_env env, napi_value object, const char* name, napi_typedarray_type expected, void** data, size_t* length, napi_ref* ref) {
  napi_value value;
  if (!Property(env, object, name, &value)) return false;
  bool isTypedArray = false;
  napi_is_typedarray(env, value, &isTypedArray);
  if (!isTypedArray) return false;
  napi_typedarray_type type;
  napi_value buffer;
  size_t offset;
  if (napi_get_typedarray_info(env, value, &type, length, data, &buffer, &offset) != napi_ok || type != expected) return false;
  return napi_create_reference(env, value, 1, ref) == napi_ok;
}

// build({ space, dimensions, M, efConstruction, randomSeed, maxElements, input?, output, vectors,
//         labels, replaceDeleted?, threads }) => Promise<{ count, maxElements, threads }>
napi_value Build(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr);
  napi_valuetype type = napi_undefined;
  if (argc >= 1) napi_typeof(env, argv[0], &type);
  if (type != napi_object) return Throw(env, "build expects an options object");
  napi_value options = argv[0];

  std::unique_ptr<BuildJob> job(new BuildJob());
  auto fail = [&](const std::string& message) {
    if (job->vectorsRef) napi_delete_reference(env, job->vectorsRef);
    if (job->labelsRef) napi_delete_reference(env, job->labelsRef);
    if (job->flagsRef) napi_delete_reference(env, job->flagsRef);
    return Throw(env, message);
  };
  if (!StringProperty(env, options, "space", &job->space) || (job->space != "l2" && job->space != "ip" && job->space != "cosine")) return fail("space must be \"l2\", \"ip\" or \"cosine\"");
  if (!SizeProperty(env, options, "dimensions", 1, &job->dimensions)) return fail("dimensions must be a positive integer");
  if (!SizeProperty(env, options, "M", 2, &job->M)) return fail("M must be an integer of at least 2");
  if (!SizeProperty(env, options, "efConstruction", 1, &job->efConstruction)) return fail("efConstruction must be a positive integer");
  if (!SizeProperty(env, options, "randomSeed", 0, &job->randomSeed)) return fail("randomSeed must be a non-negative integer");
  if (!SizeProperty(env, options, "maxElements", 1, &job->maxElements)) return fail("maxElements must be a positive integer");
  if (!SizeProperty(env, options, "threads", 1, &job->threads)) return fail("threads must be a positive integer");
  napi_value ignored;
  if (Property(env, options, "input", &ignored) && !StringProperty(env, options, "input", &job->input)) return fail("input must be a path");
  if (!StringProperty(env, options, "output", &job->output) || job->output.empty()) return fail("output must be a path");

  void* data = nullptr;
  size_t vectorValues = 0;
  if (!TypedArrayProperty(env, options, "vectors", napi_float32_array, &data, &vectorValues, &job->vectorsRef)) return fail("vectors must be a Float32Array");
  job->vectors = static_cast<const float*>(data);
  size_t labelCount = 0;
  if (!TypedArrayProperty(env, options, "labels", napi_uint32_array, &data, &labelCount, &job->labelsRef)) return fail("labels must be a Uint32Array");
  job->labels = static_cast<const uint32_t*>(data);
  job->count = labelCount;
  if (vectorValues != labelCount * job->dimensions) return fail("vectors must hold labels.length * dimensions values");
  if (Property(env, options, "replaceDeleted", &ignored)) {
    size_t flagCount = 0;
    if (!TypedArrayProperty(env, options, "replaceDeleted", napi_uint8_array, &data, &flagCount, &job->flagsRef) || flagCount != labelCount) {
      return fail("replaceDeleted must be a Uint8Array with one flag per label");
    }
    job->replaceDeleted = static_cast<const uint8_t*>(data);
  }
  if (job->input.empty() && job->count > job->maxElements) return fail("maxElements is smaller than the batch");

  napi_value promise;
  if (napi_create_promise(env, &job->deferred, &promise) != napi_ok) return fail("cannot create a promise");
  napi_value name;
  napi_create_string_utf8(env, "zerda-hnsw-parallel-build", NAPI_AUTO_LENGTH, &name);
  if (napi_create_async_work(env, nullptr, name, Execute, Complete, job.get(), &job->work) != napi_ok) return fail("cannot create async work");
  if (napi_queue_async_work(env, job->work) != napi_ok) {
    napi_delete_async_work(env, job->work);
    return fail("cannot queue async work");
  }
  job.release();  // owned by the async work now; Complete deletes it
  return promise;
}

// openUnnamedFile(directory) => file descriptor of a new file without a name in `directory`
// (Linux O_TMPFILE): nothing is left on disk when the process ends, however it ends. Throws an
// Error whose `code` is the errno name where the kernel or file system cannot do it.
napi_value OpenUnnamedFile(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr);
  napi_value options = argc >= 1 ? argv[0] : nullptr;
  std::string directory;
  size_t length = 0;
  if (options == nullptr || napi_get_value_string_utf8(env, options, nullptr, 0, &length) != napi_ok) return Throw(env, "openUnnamedFile expects a directory path");
  directory.assign(length, '\0');
  napi_get_value_string_utf8(env, options, &directory[0], length + 1, &length);
#if defined(__linux__) && defined(O_TMPFILE)
  // O_EXCL: the file can never be linked into the file system later.
  const int fd = open(directory.c_str(), O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
  if (fd >= 0) {
    napi_value result;
    napi_create_int32(env, fd, &result);
    return result;
  }
  const int code = errno;
  const char* codeName = code == EOPNOTSUPP ? "EOPNOTSUPP" : code == EISDIR ? "EISDIR" : code == EINVAL ? "EINVAL" : code == ENOENT ? "ENOENT" : code == EACCES ? "EACCES" : "EUNKNOWN";
  const std::string message = std::string("O_TMPFILE in ") + directory + ": " + std::strerror(code);
#else
  const char* codeName = "ENOSYS";
  const std::string message = "unnamed temporary files (O_TMPFILE) are not available on this platform";
#endif
  napi_throw_error(env, codeName, message.c_str());
  return nullptr;
}

napi_value Init(napi_env env, napi_value exports) {
  napi_value build;
  napi_value openUnnamed;
  napi_create_function(env, "build", NAPI_AUTO_LENGTH, Build, nullptr, &build);
  napi_create_function(env, "openUnnamedFile", NAPI_AUTO_LENGTH, OpenUnnamedFile, nullptr, &openUnnamed);
  napi_set_named_property(env, exports, "build", build);
  napi_set_named_property(env, exports, "openUnnamedFile", openUnnamed);
  return exports;
}

}  // namespace

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
