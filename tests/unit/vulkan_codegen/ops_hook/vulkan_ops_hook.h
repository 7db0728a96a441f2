// Force-included (-include) into the op-table sources of relax_ops_vulkan_codegen_tests: the GPU
// harness's call of tir::run_gpu_program (tests/unit/ops/op_test_gpu.h) goes to
// vulkan_run_gpu_program_hook (vulkan_ops_hook.cc), which compiles every kernel of the lowered
// program to SPIR-V, validates it, and then runs the program in the interpreter as before.
// So every op of the op table, as the GPU rules schedule it, goes through the Vulkan codegen
// without a change to the op tests.
#pragma once
#define run_gpu_program vulkan_run_gpu_program_hook
