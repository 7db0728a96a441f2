// Phase 1 of the ONNX import (importer.h): checks the whole model before any IR is built. The
// opset must be one the frontend implements; every node's op must have a converter at that
// opset (all unsupported ops reported in one error, grouped by op with their nodes); every
// value is defined exactly once; control-flow nodes have well-formed subgraphs, checked
// recursively. The nodes are sorted topologically (Kahn's algorithm, keeping the file's order
// among ready nodes; a cycle is an error naming its nodes). Also here: the analysis of which
// outer values a subgraph reads, which orders a control-flow node after their producers.
#include <algorithm>
#include <deque>
#include <set>
#include <sstream>

#include "importer.h"
#include "relax/support/diagnostic.h"

namespace relax::onnx_frontend {

namespace {

constexpr int kMinOpset = 1;
constexpr int kMaxOpset = 17;

std::string node_label(const onnx::NodeProto& node, int index) {
  return node.name().empty() ? "#" + std::to_string(index) : node.name();
}

using UnsupportedOps = std::map<std::string, std::vector<std::string>>;

/// The checks of phase 1 on one graph: `outer` names the values of the enclosing graphs (a
/// subgraph of If/Loop/Scan reads them), `prefix` qualifies node labels ("loop/body/").
/// Subgraphs are checked recursively (their structure by check_control_node). Problems go to
/// `problems`, unsupported ops to `unsupported`; returns the nodes in a topological order, in
/// which a node follows the producers of the outer values its subgraphs read.
std::vector<int> check_graph(const onnx::GraphProto& graph, int opset, const std::set<std::string>& outer,
                             const std::string& prefix, std::vector<std::string>& problems,
                             UnsupportedOps& unsupported) {
  // Unsupported ops, grouped by (domain, op type), with their nodes.
  const auto& table = converter_table();
  for (int i = 0; i < graph.node_size(); ++i) {
    const auto& node = graph.node(i);
    bool default_domain = node.domain().empty() || node.domain() == "ai.onnx";
    auto it = table.find(node.op_type());
    if (default_domain && it != table.end() && opset >= it->second.min_opset) continue;
    std::string key = default_domain ? node.op_type() : node.domain() + "::" + node.op_type();
    unsupported[key].push_back(prefix + node_label(node, i));
  }

  // Definitions: graph inputs, initializers, node outputs (each once).
  std::set<std::string> outside;
  for (const auto& in : graph.input()) outside.insert(in.name());
  for (const auto& init : graph.initializer()) outside.insert(init.name());
  std::map<std::string, int> producer;
  for (int i = 0; i < graph.node_size(); ++i) {
    for (const auto& out : graph.node(i).output()) {
      if (out.empty()) continue;
      if (outside.count(out) || producer.count(out)) {
        problems.push_back("value '" + out + "' is defined twice (again by node '" + prefix +
                           node_label(graph.node(i), i) + "')");
      } else {
        producer[out] = i;
      }
    }
  }
  std::vector<std::vector<int>> users(size_t(graph.node_size()));
  std::vector<int> pending(size_t(graph.node_size()), 0);
  std::set<std::string> visible = outer;  // to the subgraphs
  visible.insert(outside.begin(), outside.end());
  for (const auto& [name, i] : producer) visible.insert(name);
  for (int i = 0; i < graph.node_size(); ++i) {
    const auto& node = graph.node(i);
    for (const auto& in : node.input()) {
      if (in.empty() || outside.count(in) || (outer.count(in) && !producer.count(in))) continue;
      auto it = producer.find(in);
      if (it == producer.end()) {
        problems.push_back("node '" + prefix + node_label(node, i) + "' (" + node.op_type() +
                           ") reads '" + in + "', which no node, graph input or initializer "
                           "defines (a missing initializer?)");
        continue;
      }
      users[size_t(it->second)].push_back(i);
      ++pending[size_t(i)];
    }
    // Subgraphs, and the structure of the control-flow ops this importer converts.
    bool default_domain = node.domain().empty() || node.domain() == "ai.onnx";
    auto conv = table.find(node.op_type());
    bool converted = default_domain && conv != table.end() && opset >= conv->second.min_opset;
    bool control = node.op_type() == "If" || node.op_type() == "Loop" || node.op_type() == "Scan";
    if (!converted || (!has_subgraphs(node) && !control)) continue;  // unsupported: reported above
    std::string label = prefix + node_label(node, i);
    for (const std::string& p : check_control_node(node, opset)) {
      problems.push_back("node '" + label + "' (" + node.op_type() + "): " + p);
    }
    for (const auto& a : node.attribute()) {
      if (a.type() == onnx::AttributeProto::GRAPH) {
        check_graph(a.g(), opset, visible, label + "/" + a.name() + "/", problems, unsupported);
      }
    }
    // The outer values the subgraphs read order the node after their producers.
    for (const std::string& in : subgraph_reads(node)) {
      auto it = producer.find(in);
      if (it == producer.end() || it->second == i) continue;
      users[size_t(it->second)].push_back(i);
      ++pending[size_t(i)];
    }
  }
  for (const auto& out : graph.output()) {
    if (!outside.count(out.name()) && !producer.count(out.name()) && !outer.count(out.name())) {
      problems.push_back((prefix.empty() ? "graph output '" : "output '" + prefix) + out.name() +
                         "' is defined by no node, graph input or initializer");
    }
  }

  // Kahn's algorithm, keeping the file's order among ready nodes.
  std::vector<int> order;
  std::deque<int> ready;
  for (int i = 0; i < graph.node_size(); ++i) {
    if (pending[size_t(i)] == 0) ready.push_back(i);
  }
  while (!ready.empty()) {
    int i = ready.front();
    ready.pop_front();
    order.push_back(i);
    for (int u : users[size_t(i)]) {
      if (--pending[size_t(u)] == 0) ready.push_back(u);
    }
  }
  if (order.size() != size_t(graph.node_size()) && problems.empty()) {
    std::ostringstream os;
    os << "the graph has a cycle through the nodes ";
    int listed = 0;
    for (int i = 0; i < graph.node_size(); ++i) {
      if (pending[size_t(i)] == 0) continue;
      if (listed++ == 8) {
        os << ", ...";
        break;
      }
      os << (listed > 1 ? ", " : "") << "'" << prefix << node_label(graph.node(i), i) << "' ("
         << graph.node(i).op_type() << ")";
    }
    problems.push_back(os.str());
  }
  return order;
}

}  // namespace

/// The default-domain opset the model imports; an error when absent or outside kMin..kMax.
int model_opset(const onnx::ModelProto& model, const std::string& file) {
  int opset = -1;
  for (const auto& imp : model.opset_import()) {
    if (imp.domain().empty() || imp.domain() == "ai.onnx") opset = int(imp.version());
  }
  RX_CHECK(opset >= 0) << file << ": the model imports no opset of the default ONNX domain";
  RX_CHECK(opset >= kMinOpset && opset <= kMaxOpset)
      << file << ": opset " << opset << " is not supported (the ONNX frontend implements opsets "
      << kMinOpset << " to " << kMaxOpset << ")";
  return opset;
}

/// Phase 1: every problem that would stop the import, reported together. Returns the nodes
/// in a topological order.
std::vector<int> check_model(const onnx::GraphProto& graph, int opset, const std::string& file) {
  std::vector<std::string> problems;
  UnsupportedOps unsupported;
  std::vector<int> order = check_graph(graph, opset, {}, "", problems, unsupported);
  if (!unsupported.empty()) {
    std::ostringstream os;
    os << unsupported.size() << " unsupported operator" << (unsupported.size() > 1 ? "s" : "")
       << " at opset " << opset << ":";
    for (const auto& [op, nodes] : unsupported) {
      os << "\n    " << op << " (" << nodes.size() << " node" << (nodes.size() > 1 ? "s" : "") << ": ";
      for (size_t k = 0; k < nodes.size() && k < 8; ++k) os << (k ? ", " : "") << nodes[k];
      if (nodes.size() > 8) os << ", ...";
      os << ")";
    }
    problems.insert(problems.begin(), os.str());
  }

  if (!problems.empty()) {
    std::ostringstream os;
    os << file << ": cannot import the model:";
    for (const auto& p : problems) os << "\n  " << p;
    RX_THROW() << os.str();
  }
  return order;
}

// ---- Subgraphs (If, Loop, Scan).

bool has_subgraphs(const onnx::NodeProto& node) {
  return std::any_of(node.attribute().begin(), node.attribute().end(), [](const auto& a) {
    return a.type() == onnx::AttributeProto::GRAPH || a.type() == onnx::AttributeProto::GRAPHS;
  });
}

std::set<std::string> free_names(const onnx::GraphProto& graph) {
  std::set<std::string> defined, reads;
  for (const auto& in : graph.input()) defined.insert(in.name());
  for (const auto& init : graph.initializer()) defined.insert(init.name());
  for (const auto& node : graph.node()) {
    for (const auto& out : node.output()) defined.insert(out);
    for (const auto& in : node.input()) reads.insert(in);
    for (const std::string& in : subgraph_reads(node)) reads.insert(in);
  }
  for (const auto& out : graph.output()) reads.insert(out.name());
  std::set<std::string> out;
  for (const std::string& r : reads) {
    if (!r.empty() && !defined.count(r)) out.insert(r);
  }
  return out;
}

std::set<std::string> subgraph_reads(const onnx::NodeProto& node) {
  std::set<std::string> out;
  for (const auto& a : node.attribute()) {
    if (a.type() == onnx::AttributeProto::GRAPH) {
      std::set<std::string> f = free_names(a.g());
      out.insert(f.begin(), f.end());
    }
    for (const auto& g : a.graphs()) {
      std::set<std::string> f = free_names(g);
      out.insert(f.begin(), f.end());
    }
  }
  return out;
}

std::vector<int> subgraph_order(const onnx::GraphProto& graph, int opset) {
  std::vector<std::string> problems;
  UnsupportedOps unsupported;
  std::vector<int> order = check_graph(graph, opset, free_names(graph), "", problems, unsupported);
  RX_ICHECK(problems.empty() && unsupported.empty()) << "a subgraph failed the checks after check_model";
  return order;
}

}  // namespace relax::onnx_frontend
