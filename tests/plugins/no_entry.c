/* librelax-test-no-entry.so: a shared library without relax_plugin_info. */
__attribute__((visibility("default"))) int relax_test_not_a_plugin(void) { return 42; }
