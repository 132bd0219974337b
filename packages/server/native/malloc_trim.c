/*
 * trim(): asks the C allocator to give freed memory back to the operating system.
 *
 * glibc returns freed heap memory on its own only from the top of the heap; memory freed in the
 * middle (thousands of TLS connections' buffers after a watch storm, say) stays in the process
 * until malloc_trim is called. Node does not expose it, hence this addon. Built by
 * hack/build-native.sh; optional: without it the server runs the same and keeps that memory.
 */
#include <node_api.h>
#include <stdbool.h>
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

static napi_value Init(napi_env env, napi_value exports) {
  napi_value fn;
  if (napi_create_function(env, "trim", NAPI_AUTO_LENGTH, Trim, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "trim", fn) != napi_ok) return NULL;
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
