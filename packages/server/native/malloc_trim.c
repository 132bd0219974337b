/*
 * trim(): asks the C allocator to give freed memory back to the operating system;
 * setMmapThreshold(bytes), setArenaMax(count): see below.
 *
 * glibc returns freed heap memory on its own only from the top of the heap; memory freed in the
 * middle (thousands of TLS connections' buffers after a watch storm, say) stays in the process
 * until malloc_trim is called. Node does not expose it, hence this addon. Built by
 * hack/build-native.sh; optional: without it the server runs the same and keeps that memory.
 */
#include <node_api.h>
#include <stdbool.h>
#include <stdint.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

static napi_value Trim(napi_env env, napi_callback_info info) {
  (void)info;
  bool released = false;
#if defined(__GLIBC__)
  released = malloc_trim(0) != 0;
#endif
  napi_value result;
  napi_get_boolean(env, released, &result);
  return result;
}

/*
 * mallopt(param, n) for the one integer argument n, when 0 < n <= max; false otherwise (also on
 * another libc, where the parameter is not known: `param` is then 0).
 */
static napi_value SetMallocParameter(napi_env env, napi_callback_info info, int param, int64_t max) {
  size_t argc = 1;
  napi_value argv[1];
  bool set = false;
  int64_t n = 0;
  if (param != 0 && napi_get_cb_info(env, info, &argc, argv, NULL, NULL) == napi_ok && argc == 1 &&
      napi_get_value_int64(env, argv[0], &n) == napi_ok && n > 0 && n <= max) {
#if defined(__GLIBC__)
    set = mallopt(param, (int)n) == 1;
#endif
  }
  napi_value result;
  napi_get_boolean(env, set, &result);
  return result;
}

#if defined(__GLIBC__)
#define MMAP_THRESHOLD_PARAM M_MMAP_THRESHOLD
#define ARENA_MAX_PARAM M_ARENA_MAX
#else
#define MMAP_THRESHOLD_PARAM 0
#define ARENA_MAX_PARAM 0
#endif

/*
 * setMmapThreshold(bytes): allocations of at least `bytes` get pages of their own (mmap) and go
 * back to the system when freed. glibc's default threshold rises with every large block freed,
 * until big list buffers live in the heap and leave it fragmented after a burst.
 */
static napi_value SetMmapThreshold(napi_env env, napi_callback_info info) {
  return SetMallocParameter(env, info, MMAP_THRESHOLD_PARAM, INT32_MAX);
}

/*
 * setArenaMax(count): at most `count` malloc arenas for the threads that ask for one from now on.
 * glibc gives a thread that meets contention an arena of its own, up to eight per core; each keeps
 * its own free lists and part-used pages, which malloc_trim cannot give back while any block on
 * them lives. A replica's worker threads and Node's helper threads then hold several such arenas.
 */
static napi_value SetArenaMax(napi_env env, napi_callback_info info) {
  return SetMallocParameter(env, info, ARENA_MAX_PARAM, 1024);
}

static bool Export(napi_env env, napi_value exports, const char *name, napi_callback cb) {
  napi_value fn;
  return napi_create_function(env, name, NAPI_AUTO_LENGTH, cb, NULL, &fn) == napi_ok &&
         napi_set_named_property(env, exports, name, fn) == napi_ok;
}

static napi_value Init(napi_env env, napi_value exports) {
  if (!Export(env, exports, "trim", Trim) || !Export(env, exports, "setMmapThreshold", SetMmapThreshold) ||
      !Export(env, exports, "setArenaMax", SetArenaMax))
    return NULL;
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
