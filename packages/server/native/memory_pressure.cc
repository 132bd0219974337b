/*
 * memoryPressure(): tells V8 memory is critically short, which makes it collect the whole heap
 * at once "to reduce the memory footprint" and shrink the young generation back to its minimum.
 *
 * V8 grows the young generation (up to 2 x 16 MiB semi-spaces) under allocation bursts such as
 * big list responses and never shrinks it again without such a notification: neither gc() nor
 * an idle process gives it back, so a worker that served large lists keeps ~32 MiB of young
 * generation resident for good. Node exposes no call for it, hence this addon (C++: the
 * notification is V8 API, not Node-API). Built by hack/build-native.sh against the running Node's
 * headers; optional: without it the server runs the same and keeps that memory.
 */
#include <node_api.h>
#include <v8.h>

static napi_value MemoryPressure(napi_env env, napi_callback_info info) {
  (void)info;
  v8::Isolate* isolate = v8::Isolate::GetCurrent();
  // On the isolate's own thread, kCritical collects synchronously before returning.
  if (isolate != nullptr) isolate->MemoryPressureNotification(v8::MemoryPressureLevel::kCritical);
  napi_value result;
  napi_get_boolean(env, isolate != nullptr, &result);
  return result;
}

static napi_value Init(napi_env env, napi_value exports) {
  napi_value fn;
  if (napi_create_function(env, "memoryPressure", NAPI_AUTO_LENGTH, MemoryPressure, nullptr, &fn) != napi_ok ||
      napi_set_named_property(env, exports, "memoryPressure", fn) != napi_ok) {
    return nullptr;
  }
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
