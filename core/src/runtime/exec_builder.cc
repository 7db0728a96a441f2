#include "relax/runtime/exec_builder.h"

#include <utility>

#include "relax/support/diagnostic.h"

namespace relax::runtime {

ExecBuilder::ExecBuilder()
    : exec_(make_ref<Executable>()), mut_(const_cast<Executable*>(exec_.get())) {}

int64_t ExecBuilder::function_index(std::string_view name, bool define) {
  auto it = index_of_.find(std::string(name));
  if (it != index_of_.end()) {
    FunctionInfo& f = mut_->functions[size_t(it->second)];
    if (define) {
      RX_CHECK(f.kind == FunctionKind::kPacked && f.end == 0 && it->second != current_)
          << "ExecBuilder: function '" << name << "' is defined twice";
    }
    return it->second;
  }
  int64_t index = int64_t(mut_->functions.size());
  FunctionInfo f;
  f.name = std::string(name);
  f.kind = FunctionKind::kPacked;
  mut_->functions.push_back(std::move(f));
  index_of_.emplace(std::string(name), index);
  return index;
}

int64_t ExecBuilder::declare_packed(std::string_view name) {
  RX_CHECK(!name.empty()) << "ExecBuilder: empty function name";
  return function_index(name, false);
}

void ExecBuilder::begin_function(std::string name, std::vector<std::string> param_names) {
  RX_CHECK(current_ < 0) << "ExecBuilder: begin_function('" << name << "') inside function '"
                         << mut_->functions[size_t(current_)].name << "'";
  RX_CHECK(!name.empty()) << "ExecBuilder: empty function name";
  int64_t index = function_index(name, true);
  FunctionInfo& f = mut_->functions[size_t(index)];
  f.kind = FunctionKind::kBytecode;
  f.num_params = int64_t(param_names.size());
  f.param_names = std::move(param_names);
  f.start = int64_t(mut_->instructions.size());
  f.end = f.start;
  current_ = index;
  max_register_ = f.num_params - 1;
  label_pos_.clear();
  fixups_.clear();
}

void ExecBuilder::set_param_types(std::vector<std::string> types) {
  RX_CHECK(current_ >= 0) << "ExecBuilder: set_param_types outside a function";
  FunctionInfo& f = mut_->functions[size_t(current_)];
  RX_CHECK(int64_t(types.size()) == f.num_params)
      << "ExecBuilder: function '" << f.name << "' has " << f.num_params << " parameters, got "
      << types.size() << " parameter types";
  f.param_types = std::move(types);
}

void ExecBuilder::end_function(int64_t min_registers) {
  RX_CHECK(current_ >= 0) << "ExecBuilder: end_function without begin_function";
  FunctionInfo& f = mut_->functions[size_t(current_)];
  f.end = int64_t(mut_->instructions.size());
  RX_CHECK(f.end > f.start) << "ExecBuilder: function '" << f.name << "' has no instructions";
  for (auto [pc, label] : fixups_) {
    int64_t target = label_pos_[size_t(label)];
    RX_CHECK(target >= 0) << "ExecBuilder: function '" << f.name << "' jumps to an unbound label";
    mut_->instructions[size_t(pc)].value = f.start + target - pc;
  }
  f.register_file_size = std::max({max_register_ + 1, f.num_params, min_registers});
  current_ = -1;
}

void ExecBuilder::note_register(RegName r) {
  if (r >= 0) max_register_ = std::max(max_register_, r);
}

void ExecBuilder::emit(Instruction instr) {
  RX_CHECK(current_ >= 0) << "ExecBuilder: instruction emitted outside a function";
  mut_->instructions.push_back(instr);
}

void ExecBuilder::emit_call(std::string_view func_name, std::vector<Arg> args, RegName dst) {
  RX_CHECK(current_ >= 0) << "ExecBuilder: emit_call outside a function";
  Instruction in;
  in.op = Opcode::kCall;
  in.reg = dst;
  in.value = declare_packed(func_name);
  in.args_begin = uint32_t(mut_->args.size());
  in.num_args = uint32_t(args.size());
  note_register(dst);
  for (const Arg& a : args) {
    if (a.kind == ArgKind::kRegister) note_register(a.value);
    mut_->args.push_back(a);
  }
  emit(in);
}

void ExecBuilder::emit_ret(RegName result) {
  note_register(result);
  emit(Instruction{Opcode::kRet, 0, 0, result, 0});
}

void ExecBuilder::emit_goto(int64_t offset) { emit(Instruction{Opcode::kGoto, 0, 0, 0, offset}); }

void ExecBuilder::emit_goto(Label target) {
  fixups_.emplace_back(int64_t(mut_->instructions.size()), target.id);
  emit_goto(int64_t(0));
}

void ExecBuilder::emit_if(RegName cond, int64_t false_offset) {
  note_register(cond);
  emit(Instruction{Opcode::kIf, 0, 0, cond, false_offset});
}

void ExecBuilder::emit_if(RegName cond, Label false_target) {
  fixups_.emplace_back(int64_t(mut_->instructions.size()), false_target.id);
  emit_if(cond, int64_t(0));
}

Label ExecBuilder::new_label() {
  label_pos_.push_back(-1);
  return Label{int64_t(label_pos_.size()) - 1};
}

void ExecBuilder::bind(Label label) {
  RX_CHECK(current_ >= 0 && label.id >= 0 && label.id < int64_t(label_pos_.size()))
      << "ExecBuilder: bind of a label from another function";
  RX_CHECK(label_pos_[size_t(label.id)] < 0) << "ExecBuilder: label bound twice";
  label_pos_[size_t(label.id)] = next_offset();
}

int64_t ExecBuilder::next_offset() const {
  RX_CHECK(current_ >= 0) << "ExecBuilder: next_offset outside a function";
  return int64_t(mut_->instructions.size()) - mut_->functions[size_t(current_)].start;
}

Arg ExecBuilder::add_constant(Value value) {
  mut_->constants.push_back(std::move(value));
  return Arg::const_index(int64_t(mut_->constants.size()) - 1);
}

Arg ExecBuilder::function_arg(std::string_view name) {
  return Arg::func_index(declare_packed(name));
}

void ExecBuilder::add_library(std::string format, std::vector<uint8_t> bytes) {
  mut_->libraries.push_back(Library{std::move(format), std::move(bytes)});
}

Ref<Executable> ExecBuilder::get() {
  RX_CHECK(current_ < 0) << "ExecBuilder::get: function '" << mut_->functions[size_t(current_)].name
                         << "' is still open";
  exec_->validate();
  // Hand the executable over and start afresh: the returned one is never mutated again.
  Ref<Executable> done = std::exchange(exec_, make_ref<Executable>());
  mut_ = const_cast<Executable*>(exec_.get());
  index_of_.clear();
  return done;
}

}  // namespace relax::runtime
