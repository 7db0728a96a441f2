/* The plugin ABI (DESIGN.md §7): the one C entry point of a Relax plugin and what it returns.
 *
 * A plugin is a shared library exporting
 *     const RelaxPluginInfo* relax_plugin_info(void);
 * The host checks `abi_major` (it must equal the host's) and `struct_size` (at least the
 * fields it reads), then calls `register_plugin` with a host table. The plugin registers what
 * it provides through the table's context (C++ plugins: relax/sdk/plugin.h) and returns 0, or
 * nonzero after calling `set_error` with the reason. The library stays loaded until exit.
 *
 * Compatibility (docs/sdk.md): the minor version grows when fields are appended to either
 * struct; the major version changes when anything else changes. A plugin built against an
 * older minor loads; it must read a host field added after its minor only when
 * host->struct_size covers it (RELAX_PLUGIN_HOST_HAS). Plain C so that any compiler can build
 * a plugin. */
#ifndef RELAX_TRANSFORM_PLUGIN_ABI_H_
#define RELAX_TRANSFORM_PLUGIN_ABI_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RELAX_PLUGIN_ABI_MAJOR 1
#define RELAX_PLUGIN_ABI_MINOR 1 /* 1.1: RelaxPluginHost.c_abi_version, .relax_version */
/** The SDK version a plugin was built against (the Relax release). */
#define RELAX_SDK_VERSION "0.1.0"
/** Marks the entry point exported from a library built with hidden visibility. */
#if defined(_WIN32)
#define RELAX_PLUGIN_EXPORT __declspec(dllexport)
#else
#define RELAX_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

/** The entry point's name. */
#define RELAX_PLUGIN_ENTRY_POINT "relax_plugin_info"

/** What the host gives the register function. */
typedef struct RelaxPluginHost {
  uint32_t struct_size;
  uint32_t abi_major;
  uint32_t abi_minor;
  /** The host's registrar; C++ plugins reach it through relax::sdk::registrar(). */
  void* context;
  /** Records why registration failed (the host reports it with the plugin's path). */
  void (*set_error)(void* context, const char* message);
  /* ---- 1.1 */
  /** The runtime C ABI of the host (RX_ABI_VERSION of relax/runtime/c_abi.h). */
  uint32_t c_abi_version;
  /** The Relax release of the host ("0.1.0"). */
  const char* relax_version;
} RelaxPluginHost;

/** Whether `host` (a RelaxPluginHost*) has the field `field` (a host of an older minor lacks
 *  the fields appended after it). */
#define RELAX_PLUGIN_HOST_HAS(host, field) \
  ((host)->struct_size >= offsetof(RelaxPluginHost, field) + sizeof((host)->field))

/** What relax_plugin_info() returns; static storage in the plugin. */
typedef struct RelaxPluginInfo {
  uint32_t struct_size; /* sizeof(RelaxPluginInfo) as the plugin saw it */
  uint32_t abi_major;
  uint32_t abi_minor;
  const char* name;        /* short name: "fusion" for librelax-fusion.so */
  const char* version;     /* the plugin's own version */
  const char* sdk_version; /* RELAX_SDK_VERSION at build time */
  /** Registers the plugin's passes (and more); 0 on success. */
  int (*register_plugin)(const RelaxPluginHost* host);
} RelaxPluginInfo;

typedef const RelaxPluginInfo* (*RelaxPluginInfoFn)(void);

#ifdef __cplusplus
}
#endif

#endif /* RELAX_TRANSFORM_PLUGIN_ABI_H_ */
