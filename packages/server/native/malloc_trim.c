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
 * setMmapThreshold(bytes): allocations of at least `bytes` get pages of their own (mmap) and go
 * back to the system when freed. glibc's default threshold rises with every large block freed,
 * until big list buffers live in the heap and leave it fragmented after a burst.
 */
static napi_value SetMmapThreshold(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  bool set = false;
  int64_t bytes = 0;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) == napi_ok && argc == 1 &&
      napi_get_value_int64(env, argv[0], &bytes) == napi_ok && bytes > 0 && bytes <= INT32_MAX) {
#if defined(__GLIBC__)
    set = mallopt(M_MMAP_THRESHOLD, (int)bytes) == 1;
#endif
  }
  napi_value result;
  napi_get_boolean(env, set, &result);
  return result;
}

/*
 * setArenaMax(count): at most `count` malloc arenas for the threads that ask for one from now on.
 * glibc gives a thread that meets contention an arena of its own, up to eight per core; each keeps
 * its own free lists and part-used pages, which malloc_trim cannot give back while any block on
 * them lives. A replica's worker threads and Node's helper threads then hold several such arenas.
 */
static napi_value SetArenaMax(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  bool set = false;
  int64_t count = 0;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) == napi_ok && argc == 1 &&
      napi_get_value_int64(env, argv[0], &count) == napi_ok && count > 0 && count <= 1024) {
#if defined(__GLIBC__)
    set = mallopt(M_ARENA_MAX, (int)count) == 1;
#endif
  }
  napi_value result;
  napi_get_boolean(env, set, &result);
  return result;
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
