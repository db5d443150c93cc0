#include "writer.hpp"

#include <utility>

#include "borrowed_array.hpp"
#include "dudley/core/error.hpp"
#include "dudley/layout/syntax/emitter.hpp"
#include "dudley/layout/syntax/parser.hpp"
#include "layout_tools.hpp"
#include "numpy_dtype.hpp"
#include "selection.hpp"

namespace dudley::python {
namespace {

layout::WriteOptions write_options(const WriterOptions& options) {
  layout::WriteOptions out;
  if (options.order) out.order = order_named(*options.order);
  out.embed_layout = options.embed_layout;
  out.fsync = options.fsync;
  return out;
}

std::shared_ptr<layout::Layout> parse(const std::string& text_or_path) {
  return std::make_shared<layout::Layout>(parse_layout_arg(text_or_path));
}

// What a writer of one file owns: its layout, which the writer refers to.
struct OwnWriter {
  std::shared_ptr<layout::Layout> layout;
  std::optional<layout::Writer> writer;
};

}  // namespace

ByteOrder order_named(const std::string& order) {
  if (order == "<" || order == "little") return ByteOrder::kLittle;
  if (order == ">" || order == "big") return ByteOrder::kBig;
  if (order == "=" || order == "native") return native_byte_order();
  throw Error(ErrorCategory::kUsage,
              "byte order '" + order + "': give \"little\" (\"<\"), \"big\" (\">\") or \"native\"");
}

NativeWriter::NativeWriter(const std::string& layout, const std::string& path,
                           const WriterOptions& options) {
  auto own = std::make_shared<OwnWriter>();
  own->layout = parse(layout);
  own->writer.emplace(*own->layout, path, write_options(options));
  writer_ = &*own->writer;
  owner_ = std::move(own);
}

NativeWriter::NativeWriter(std::shared_ptr<void> family, layout::Writer* member)
    : owner_(std::move(family)), writer_(member) {}

void NativeWriter::set_param(const std::string& name, int64_t value) {
  writer_->set_param(name, value);
}

py::tuple NativeWriter::declared(const std::string& path) {
  const layout::Writer::Declared d = writer_->declared(path);
  py::object dtype = d.dtype ? py::object(stored_numpy_dtype(*d.dtype)) : py::none();
  py::object shape = d.shape ? py::object(py::tuple(py::cast(*d.shape))) : py::none();
  return py::make_tuple(dtype, shape);
}

void NativeWriter::write(const std::string& path, const py::array& data) {
  writer_->write(path, borrow_array(data));
}

void NativeWriter::write_region(const std::string& path, const py::array& data, py::handle index) {
  const layout::Writer::Declared d = writer_->declared(path);
  if (!d.shape) {
    throw Error(ErrorCategory::kUsage,
                path +
                    ": its shape is not known yet: set its parameters (set_param) before "
                    "writing a region of it");
  }
  const Selection selection = selection_of(index, *d.shape);
  // np.newaxis entries take no place in the file: the data is shaped as the region.
  const std::vector<int64_t> region = selection.slab.result_shape();
  py::array shaped = data;
  if (std::vector<int64_t>(data.shape(), data.shape() + data.ndim()) != region) {
    shaped = data.attr("reshape")(py::tuple(py::cast(region)));
  }
  writer_->write(path, borrow_array(shaped), selection.slab);
}

void NativeWriter::write_instances(const std::string& path, const py::list& arrays) {
  std::vector<NDArray> instances;
  instances.reserve(arrays.size());
  for (py::handle a : arrays) instances.push_back(borrow_value(a));
  writer_->write_instances(path, instances);
}

void NativeWriter::write_pointee(uint64_t key, const py::array& data) {
  writer_->write_pointee(key, borrow_array(data));
}

std::string NativeWriter::append(const std::string& list_path, const py::array& data) {
  return writer_->append(list_path, borrow_array(data));
}

uint64_t NativeWriter::commit() {
  py::gil_scoped_release unlocked;
  return writer_->commit();
}

std::string NativeWriter::layout_text() const {
  return layout::emit_layout(writer_->layout());
}

struct NativeFamilyWriter::State {
  std::shared_ptr<layout::Layout> layout;
  std::unique_ptr<layout::FamilyWriter> family;
};

NativeFamilyWriter::NativeFamilyWriter(const std::string& layout, const std::string& stem,
                                       const WriterOptions& options, bool params_in_files)
    : state_(std::make_shared<State>()) {
  state_->layout = parse(layout);
  layout::FamilyOptions family;
  family.write = write_options(options);
  family.params_in_files = params_in_files;
  state_->family = std::make_unique<layout::FamilyWriter>(*state_->layout, stem, family);
}

NativeWriter NativeFamilyWriter::add() {
  return {state_, &state_->family->add()};
}

std::string NativeFamilyWriter::finish() {
  py::gil_scoped_release unlocked;
  return state_->family->finish();
}

}  // namespace dudley::python
