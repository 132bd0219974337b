/*
 * dup(fd): a second descriptor of the same open socket (close-on-exec), or -1.
 *
 * Worker threads of a replica (`--worker-isolation=thread`) accept on one listening socket. A
 * Node handle closes its descriptor when it is closed, and a thread that ends (asked or crashed)
 * closes every handle it has: were the threads to share one descriptor, the first thread to end
 * would close the port for all, and the others' handles would go on naming a number the process
 * may reuse for another file. With a descriptor of its own per thread, a thread that ends closes
 * only its own; the socket listens while any descriptor of it is open. Node has no dup, hence
 * this addon. Built by hack/build-native.sh; without it a replica runs its workers as processes.
 */
#include <node_api.h>
#include <fcntl.h>
#include <stdint.h>

static napi_value Dup(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  int32_t fd = -1;
  int32_t copy = -1;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) == napi_ok && argc == 1 &&
      napi_get_value_int32(env, argv[0], &fd) == napi_ok && fd >= 0) {
    copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  }
  napi_value result;
  napi_create_int32(env, copy, &result);
  return result;
}

static napi_value Init(napi_env env, napi_value exports) {
  napi_value fn;
  if (napi_create_function(env, "dup", NAPI_AUTO_LENGTH, Dup, NULL, &fn) != napi_ok ||
      napi_set_named_property(env, exports, "dup", fn) != napi_ok) return NULL;
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
