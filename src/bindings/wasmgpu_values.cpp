#include "bindings/wasmgpu_values.hpp"

#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string_view>
#include <type_traits>

#include "wasm/device/interpreter_layout.hpp"

namespace nb = nanobind;

namespace wavestack::bindings {
namespace {

constexpr std::uint64_t kNullRef = wasm::device::NULL_REF;

[[noreturn]] void raise(PyObject* type, const std::string& message) {
  PyErr_SetString(type, message.c_str());
  throw nb::python_error();
}

const char* kind_name(char kind) {
  switch (kind) {
    case 'i':
      return "i32";
    case 'I':
      return "i64";
    case 'f':
      return "f32";
    case 'F':
      return "f64";
    case 'r':
      return "funcref";
    default:
      return "externref";
  }
}

// Where a value sits in `inputs`, spelled only when an error names it: building the text for
// every value took a sixth of a 10,000-row call.
struct Where {
  std::size_t row = 0;
  std::size_t column = 0;
  std::size_t width = 1;

  [[nodiscard]] std::string text() const {
    std::string out = "inputs[" + std::to_string(row) + "]";
    if (width != 1) out += "[" + std::to_string(column) + "]";
    return out;
  }
};

Where where(std::size_t row, std::size_t column, std::size_t width) {
  return Where{row, column, width};
}

// A double for an f32 parameter: rounded to binary32; a finite value that rounds to infinity
// is an OverflowError (as struct.pack("<f") does), NaN payloads are kept as far as binary32 can.
std::uint64_t f32_slot(double value, const Where& at) {
  const auto single = static_cast<float>(value);
  if (std::isinf(single) && std::isfinite(value)) {
    raise(PyExc_OverflowError, at.text() + ": " + std::to_string(value) + " is too large for f32");
  }
  return std::bit_cast<std::uint32_t>(single);
}

std::uint64_t integer_slot(PyObject* value, char kind, const Where& at) {
  int overflow = 0;
  const long long signed_value = PyLong_AsLongLongAndOverflow(value, &overflow);
  if (signed_value == -1 && PyErr_Occurred()) throw nb::python_error();
  if (kind == 'f' || kind == 'F') {
    const double real = PyLong_AsDouble(value);  // OverflowError beyond the double range
    if (real == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      raise(PyExc_OverflowError, at.text() + ": the integer is too large for " + std::string(kind_name(kind)));
    }
    return kind == 'f' ? f32_slot(real, at) : std::bit_cast<std::uint64_t>(real);
  }
  std::uint64_t bits = 0;
  if (overflow == 0) {
    bits = static_cast<std::uint64_t>(signed_value);
  } else if (overflow > 0) {  // above i64: may still be a u64 bit pattern
    bits = PyLong_AsUnsignedLongLong(value);
    if (PyErr_Occurred()) {
      PyErr_Clear();
      overflow = 2;
    }
  }
  const bool i32 = kind == 'i';
  const bool fits = overflow == 0 ? (!i32 || (signed_value >= std::numeric_limits<std::int32_t>::min() &&
                                              signed_value <= std::numeric_limits<std::uint32_t>::max()))
                                  : (overflow == 1 && !i32);
  if (!fits) {
    nb::str text = nb::str(nb::handle(value));
    raise(PyExc_OverflowError, at.text() + ": " + std::string(text.c_str()) + " does not fit in " + kind_name(kind) +
                                   " (signed or unsigned)");
  }
  return i32 ? (bits & 0xFFFFFFFFull) : bits;
}

// One Python value for a parameter of `kind`.
std::uint64_t scalar_slot(PyObject* value, char kind, const Where& at) {
  if (kind == 'r' || kind == 'e') {
    if (value != Py_None) {
      raise(PyExc_TypeError, at.text() + ": only None (a null reference) can be passed for " + kind_name(kind) +
                                 ", got " + Py_TYPE(value)->tp_name);
    }
    return kNullRef;
  }
  if (PyBool_Check(value)) {
    raise(PyExc_TypeError, at.text() + ": expected a number for " + std::string(kind_name(kind)) + ", got bool");
  }
  if (PyLong_Check(value)) return integer_slot(value, kind, at);
  if (PyFloat_Check(value)) {
    if (kind == 'i' || kind == 'I') {
      raise(PyExc_TypeError, at.text() + ": expected an int for " + std::string(kind_name(kind)) + ", got float");
    }
    const double real = PyFloat_AS_DOUBLE(value);
    return kind == 'f' ? f32_slot(real, at) : std::bit_cast<std::uint64_t>(real);
  }
  // NumPy scalars and other number types: integers through __index__, reals through __float__.
  PyNumberMethods* number = Py_TYPE(value)->tp_as_number;
  if (number != nullptr && number->nb_index != nullptr) {
    nb::object index = nb::steal(PyNumber_Index(value));
    if (!index.is_valid()) throw nb::python_error();
    return integer_slot(index.ptr(), kind, at);
  }
  if (number != nullptr && number->nb_float != nullptr && (kind == 'f' || kind == 'F')) {
    const double real = PyFloat_AsDouble(value);
    if (real == -1.0 && PyErr_Occurred()) throw nb::python_error();
    return kind == 'f' ? f32_slot(real, at) : std::bit_cast<std::uint64_t>(real);
  }
  raise(PyExc_TypeError, at.text() + ": expected " +
                             std::string(kind == 'i' || kind == 'I' ? "an int" : "a float or an int") + " for " +
                             kind_name(kind) + ", got " + Py_TYPE(value)->tp_name);
}

// A buffer (NumPy array, array.array, memoryview) viewed as typed elements.
class Column {
 public:
  Column(PyObject* object, const char* what) {
    if (PyObject_GetBuffer(object, &view_, PyBUF_RECORDS_RO) != 0) throw nb::python_error();
    owned_ = true;
    std::string_view format = view_.format != nullptr ? view_.format : "B";
    if (!format.empty() && (format[0] == '<' || format[0] == '=' || format[0] == '@' || format[0] == '|')) {
      format.remove_prefix(1);
    }
    if (format.size() != 1) raise(PyExc_TypeError, std::string(what) + ": unsupported array dtype");
    code_ = format[0];
    switch (code_) {
      case 'b':
      case 'h':
      case 'i':
      case 'l':
      case 'q':
      case 'n':
        integer_ = true;
        signed_ = true;
        break;
      case 'B':
      case 'H':
      case 'I':
      case 'L':
      case 'Q':
      case 'N':
        integer_ = true;
        break;
      case 'f':
      case 'd':
        break;
      default:
        raise(PyExc_TypeError, std::string(what) + ": arrays of integers or floats are accepted, got format '" +
                                   std::string(format) + "'");
    }
  }
  ~Column() {
    if (owned_) PyBuffer_Release(&view_);
  }
  Column(const Column&) = delete;
  Column& operator=(const Column&) = delete;

  [[nodiscard]] int ndim() const { return view_.ndim; }
  [[nodiscard]] Py_ssize_t extent(int axis) const { return view_.shape[axis]; }

  // Element (row, column) as a slot of `kind`.
  [[nodiscard]] std::uint64_t slot(Py_ssize_t row, Py_ssize_t column, char kind, std::size_t width) const {
    const char* at = static_cast<const char*>(view_.buf) + row * view_.strides[0];
    if (view_.ndim == 2) at += column * view_.strides[1];
    if (kind == 'r' || kind == 'e') {
      raise(PyExc_TypeError, where(static_cast<std::size_t>(row), static_cast<std::size_t>(column), width).text() +
                                 ": reference parameters take None, not array values");
    }
    if (!integer_) {
      const double real = view_.itemsize == 4 ? double{load<float>(at)} : load<double>(at);
      if (kind == 'i' || kind == 'I') {
        raise(PyExc_TypeError, where(static_cast<std::size_t>(row), static_cast<std::size_t>(column), width).text() +
                                   ": a float array was given for an " + kind_name(kind) + " parameter");
      }
      if (kind == 'F') return std::bit_cast<std::uint64_t>(real);
      if (view_.itemsize == 4) return std::bit_cast<std::uint32_t>(load<float>(at));
      return f32_slot(real, where(static_cast<std::size_t>(row), static_cast<std::size_t>(column), width));
    }
    std::int64_t value = 0;
    std::uint64_t unsigned_value = 0;
    if (signed_) {
      switch (view_.itemsize) {
        case 1: {  // sign-extended by hand: int8_t is a (signed) char
          const std::uint8_t byte = load<std::uint8_t>(at);
          value = byte >= 0x80 ? std::int64_t{byte} - 256 : std::int64_t{byte};
          break;
        }
        case 2:
          value = load<std::int16_t>(at);
          break;
        case 4:
          value = load<std::int32_t>(at);
          break;
        default:
          value = load<std::int64_t>(at);
          break;
      }
      unsigned_value = static_cast<std::uint64_t>(value);
    } else {
      switch (view_.itemsize) {
        case 1:
          unsigned_value = load<std::uint8_t>(at);
          break;
        case 2:
          unsigned_value = load<std::uint16_t>(at);
          break;
        case 4:
          unsigned_value = load<std::uint32_t>(at);
          break;
        default:
          unsigned_value = load<std::uint64_t>(at);
          break;
      }
    }
    if (kind == 'F' || kind == 'f') {
      const double real = signed_ ? static_cast<double>(value) : static_cast<double>(unsigned_value);
      return kind == 'F'
                 ? std::bit_cast<std::uint64_t>(real)
                 : f32_slot(real, where(static_cast<std::size_t>(row), static_cast<std::size_t>(column), width));
    }
    if (kind == 'i') {
      const bool fits = signed_ ? (value >= std::numeric_limits<std::int32_t>::min() &&
                                   value <= std::numeric_limits<std::uint32_t>::max())
                                : unsigned_value <= std::numeric_limits<std::uint32_t>::max();
      if (!fits) {
        raise(PyExc_OverflowError,
              where(static_cast<std::size_t>(row), static_cast<std::size_t>(column), width).text() + ": " +
                  (signed_ ? std::to_string(value) : std::to_string(unsigned_value)) +
                  " does not fit in i32 (signed or unsigned)");
      }
      return unsigned_value & 0xFFFFFFFFull;
    }
    return unsigned_value;
  }

  // Column `column` of rows [0, rows) as slots of `kind` into out[row * width] where that is a
  // plain integer copy (an integer array for an i32 or i64 parameter), as slot() converts
  // them: one typed loop instead of slot()'s dispatch per element, which was a large part of a
  // short call's cost. False where it is not such a copy or a value does not fit; the caller
  // then converts element by element, and slot() raises for the value that does not fit.
  bool integer_slots(Py_ssize_t column, char kind, std::size_t width, Py_ssize_t rows, std::uint64_t* out) const {
    if (!integer_ || (kind != 'i' && kind != 'I')) return false;
    const char* at = static_cast<const char*>(view_.buf);
    if (view_.ndim == 2) at += column * view_.strides[1];
    const Py_ssize_t stride = view_.strides[0];
    const bool i32 = kind == 'i';
    switch (view_.itemsize) {
      case 1:
        return signed_ ? copy_integers<std::int8_t>(at, stride, rows, i32, width, out)
                       : copy_integers<std::uint8_t>(at, stride, rows, i32, width, out);
      case 2:
        return signed_ ? copy_integers<std::int16_t>(at, stride, rows, i32, width, out)
                       : copy_integers<std::uint16_t>(at, stride, rows, i32, width, out);
      case 4:
        return signed_ ? copy_integers<std::int32_t>(at, stride, rows, i32, width, out)
                       : copy_integers<std::uint32_t>(at, stride, rows, i32, width, out);
      default:
        return signed_ ? copy_integers<std::int64_t>(at, stride, rows, i32, width, out)
                       : copy_integers<std::uint64_t>(at, stride, rows, i32, width, out);
    }
  }

 private:
  template <typename T>
  static T load(const char* at) {
    T value;
    std::memcpy(&value, at, sizeof(T));
    return value;
  }

  template <typename T>
  static std::int64_t load_signed(const char* at) {
    if constexpr (sizeof(T) == 1) {  // sign-extended by hand, as slot() does: int8_t is a (signed) char
      const std::uint8_t byte = load<std::uint8_t>(at);
      return byte >= 0x80 ? std::int64_t{byte} - 256 : std::int64_t{byte};
    } else {
      return load<T>(at);
    }
  }

  // integer_slots for elements of type T: i32 takes what fits in 32 bits signed or unsigned,
  // as its low 32 bits; i64 the value's two's-complement bits.
  template <typename T>
  static bool copy_integers(const char* at, Py_ssize_t stride, Py_ssize_t rows, bool i32, std::size_t width,
                            std::uint64_t* out) {
    for (Py_ssize_t row = 0; row < rows; ++row) {
      if constexpr (std::is_signed_v<T>) {
        const std::int64_t wide = load_signed<T>(at + row * stride);
        if (i32 && (wide < std::numeric_limits<std::int32_t>::min() ||
                    wide > std::int64_t{std::numeric_limits<std::uint32_t>::max()})) {
          return false;
        }
        const auto bits = static_cast<std::uint64_t>(wide);
        out[static_cast<std::size_t>(row) * width] = i32 ? bits & 0xFFFFFFFFull : bits;
      } else {
        const auto bits = static_cast<std::uint64_t>(load<T>(at + row * stride));
        if (i32 && bits > std::numeric_limits<std::uint32_t>::max()) return false;
        out[static_cast<std::size_t>(row) * width] = bits;
      }
    }
    return true;
  }

  Py_buffer view_{};
  bool owned_ = false;
  char code_ = 'B';
  bool integer_ = false;
  bool signed_ = false;
};

bool is_array(PyObject* object) {
  return PyObject_CheckBuffer(object) != 0 && !PyBytes_Check(object) && !PyByteArray_Check(object);
}

void check_length(Py_ssize_t length, std::uint32_t count) {
  if (length != static_cast<Py_ssize_t>(count)) {
    raise(PyExc_ValueError,
          "inputs: expected one row per instance (" + std::to_string(count) + "), got " + std::to_string(length));
  }
}

std::vector<std::uint64_t> pack_array(PyObject* inputs, const std::string& kinds, std::uint32_t count) {
  const std::size_t width = kinds.size();
  Column column(inputs, "inputs");
  if (column.ndim() == 1 && width != 1) {
    raise(PyExc_TypeError, "inputs: a 1-D array gives one value per instance, but the function takes " +
                               std::to_string(width) + " arguments (pass a 2-D array or a tuple of arrays)");
  }
  if (column.ndim() != 1 && column.ndim() != 2) raise(PyExc_TypeError, "inputs: arrays must be 1-D or 2-D");
  check_length(column.extent(0), count);
  if (column.ndim() == 2 && column.extent(1) != static_cast<Py_ssize_t>(width)) {
    raise(PyExc_TypeError, "inputs: a 2-D array needs one column per argument (" + std::to_string(width) + "), got " +
                               std::to_string(column.extent(1)));
  }
  std::vector<std::uint64_t> slots(std::size_t{count} * width);
  bool copied = true;
  for (std::size_t k = 0; k < width && copied; ++k) {
    copied = column.integer_slots(static_cast<Py_ssize_t>(k), kinds[k], width, count, slots.data() + k);
  }
  if (copied) return slots;
  for (std::uint32_t i = 0; i < count; ++i) {
    for (std::size_t k = 0; k < width; ++k) {
      slots[std::size_t{i} * width + k] = column.slot(i, static_cast<Py_ssize_t>(k), kinds[k], width);
    }
  }
  return slots;
}

std::vector<std::uint64_t> pack_columns(PyObject* inputs, const std::string& kinds, std::uint32_t count) {
  const std::size_t width = kinds.size();
  std::vector<std::uint64_t> slots(std::size_t{count} * width);
  for (std::size_t k = 0; k < width; ++k) {
    const std::string what = "inputs[" + std::to_string(k) + "]";
    Column column(PyTuple_GET_ITEM(inputs, static_cast<Py_ssize_t>(k)), what.c_str());
    if (column.ndim() != 1) raise(PyExc_TypeError, what + ": a column must be a 1-D array");
    if (column.extent(0) != static_cast<Py_ssize_t>(count)) {
      raise(PyExc_ValueError, what + ": expected one value per instance (" + std::to_string(count) + "), got " +
                                  std::to_string(column.extent(0)));
    }
    if (column.integer_slots(0, kinds[k], width, count, slots.data() + k)) continue;
    for (std::uint32_t i = 0; i < count; ++i) slots[std::size_t{i} * width + k] = column.slot(i, 0, kinds[k], 1);
  }
  return slots;
}

// A tuple of `width` 1-D arrays is a tuple of columns (the NumPy form for several parameters).
bool is_tuple_of_columns(PyObject* inputs, std::size_t width) {
  if (!PyTuple_Check(inputs) || width < 2 || PyTuple_GET_SIZE(inputs) != static_cast<Py_ssize_t>(width)) {
    return false;
  }
  for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(inputs); ++k) {
    if (!is_array(PyTuple_GET_ITEM(inputs, k))) return false;
  }
  return true;
}

std::vector<std::uint64_t> pack_rows(PyObject* inputs, const std::string& kinds, std::uint32_t count) {
  const std::size_t width = kinds.size();
  nb::object rows = nb::steal(PySequence_Fast(inputs, "inputs"));
  if (!rows.is_valid()) throw nb::python_error();
  check_length(PySequence_Fast_GET_SIZE(rows.ptr()), count);
  PyObject** items = PySequence_Fast_ITEMS(rows.ptr());
  std::vector<std::uint64_t> slots(std::size_t{count} * width);
  for (std::uint32_t i = 0; i < count; ++i) {
    PyObject* row = items[i];
    const bool sequence = PyTuple_Check(row) || PyList_Check(row);
    if (width == 1 && !sequence) {  // one parameter: the row may be the value itself
      slots[i] = scalar_slot(row, kinds[0], where(i, 0, 1));
      continue;
    }
    if (!sequence) {
      raise(PyExc_TypeError, "inputs[" + std::to_string(i) + "]: expected a tuple of " + std::to_string(width) +
                                 " values, got " + Py_TYPE(row)->tp_name);
    }
    const Py_ssize_t length = PyTuple_Check(row) ? PyTuple_GET_SIZE(row) : PyList_GET_SIZE(row);
    if (length != static_cast<Py_ssize_t>(width)) {
      raise(PyExc_TypeError, "inputs[" + std::to_string(i) + "]: expected " + std::to_string(width) + " values, got " +
                                 std::to_string(length));
    }
    for (std::size_t k = 0; k < width; ++k) {
      PyObject* value = PyTuple_Check(row) ? PyTuple_GET_ITEM(row, static_cast<Py_ssize_t>(k))
                                           : PyList_GET_ITEM(row, static_cast<Py_ssize_t>(k));
      slots[std::size_t{i} * width + k] = scalar_slot(value, kinds[k], where(i, k, 2));
    }
  }
  return slots;
}

PyObject* value_object(std::uint64_t bits, char kind) {
  switch (kind) {
    case 'i':
      return PyLong_FromLong(static_cast<std::int32_t>(static_cast<std::uint32_t>(bits)));
    case 'I':
      return PyLong_FromLongLong(static_cast<long long>(bits));
    case 'f':
      return PyFloat_FromDouble(std::bit_cast<float>(static_cast<std::uint32_t>(bits)));
    case 'F':
      return PyFloat_FromDouble(std::bit_cast<double>(bits));
    default: {
      const auto reference = static_cast<std::uint32_t>(bits);
      if (reference == kNullRef) Py_RETURN_NONE;
      nb::object type = nb::module_::import_("wasmgpu.instances").attr("Reference");
      return type(kind == 'r' ? "funcref" : "externref", reference).release().ptr();
    }
  }
}

template <typename T>
nb::object numpy_array(std::vector<T>&& values) {
  auto* owned = new std::vector<T>(std::move(values));
  nb::capsule owner(owned, [](void* pointer) noexcept { delete static_cast<std::vector<T>*>(pointer); });
  const std::size_t shape[1] = {owned->size()};
  return nb::cast(nb::ndarray<nb::numpy, T, nb::ndim<1>>(owned->data(), 1, shape, owner));
}

template <typename T>
nb::object result_column(const wasm::CallOutcome& outcome, std::size_t width, std::size_t k, std::uint32_t count) {
  std::vector<T> values(count, T{});
  for (std::uint32_t i = 0; i < count; ++i) {
    if (outcome.status[i] != wasm::device::STATUS_RETURNED) continue;
    const std::uint64_t bits = outcome.results[std::size_t{i} * width + k];
    if constexpr (sizeof(T) == 4) {
      values[i] = std::bit_cast<T>(static_cast<std::uint32_t>(bits));
    } else {
      values[i] = std::bit_cast<T>(bits);
    }
  }
  return numpy_array(std::move(values));
}

}  // namespace

std::vector<std::uint64_t> pack_arguments(nb::handle inputs, const std::string& kinds, std::uint32_t count) {
  PyObject* object = inputs.ptr();
  if (object == Py_None) {
    if (!kinds.empty() && count != 0) {
      raise(PyExc_TypeError,
            "inputs: the function takes " + std::to_string(kinds.size()) + " arguments; pass one row per instance");
    }
    return {};
  }
  if (is_array(object)) return pack_array(object, kinds, count);
  if (is_tuple_of_columns(object, kinds.size())) return pack_columns(object, kinds, count);
  if (PyUnicode_Check(object) || PyBytes_Check(object) || PyByteArray_Check(object) || !PySequence_Check(object)) {
    raise(PyExc_TypeError, std::string("inputs: expected a sequence with one row per instance or a NumPy array, got ") +
                               Py_TYPE(object)->tp_name);
  }
  return pack_rows(object, kinds, count);
}

nb::object results_as_list(const wasm::CallOutcome& outcome, const std::string& kinds) {
  const auto count = static_cast<std::uint32_t>(outcome.status.size());
  const std::size_t width = kinds.size();
  nb::object list = nb::steal(PyList_New(count));
  if (!list.is_valid()) throw nb::python_error();
  for (std::uint32_t i = 0; i < count; ++i) {
    PyObject* item = nullptr;
    if (width == 0 || outcome.status[i] != wasm::device::STATUS_RETURNED) {
      item = Py_NewRef(Py_None);
    } else if (width == 1) {
      item = value_object(outcome.results[i], kinds[0]);
    } else {
      item = PyTuple_New(static_cast<Py_ssize_t>(width));
      for (std::size_t k = 0; k < width && item != nullptr; ++k) {
        PyObject* value = value_object(outcome.results[std::size_t{i} * width + k], kinds[k]);
        if (value == nullptr) {
          Py_CLEAR(item);
          break;
        }
        PyTuple_SET_ITEM(item, static_cast<Py_ssize_t>(k), value);
      }
    }
    if (item == nullptr) throw nb::python_error();
    PyList_SET_ITEM(list.ptr(), i, item);
  }
  return list;
}

nb::object results_as_numpy(const wasm::CallOutcome& outcome, const std::string& kinds) {
  const auto count = static_cast<std::uint32_t>(outcome.status.size());
  const std::size_t width = kinds.size();
  if (width == 0) return nb::none();
  nb::list columns;
  for (std::size_t k = 0; k < width; ++k) {
    switch (kinds[k]) {
      case 'i':
        columns.append(result_column<std::int32_t>(outcome, width, k, count));
        break;
      case 'I':
        columns.append(result_column<std::int64_t>(outcome, width, k, count));
        break;
      case 'f':
        columns.append(result_column<float>(outcome, width, k, count));
        break;
      case 'F':
        columns.append(result_column<double>(outcome, width, k, count));
        break;
      default:  // references: their u32 value, 0xFFFFFFFF for null
        columns.append(result_column<std::uint32_t>(outcome, width, k, count));
        break;
    }
  }
  if (width == 1) return columns[0];
  return nb::tuple(columns);
}

void bind_values(nb::module_& module) {
  using namespace nb::literals;
  nb::class_<wasm::CallOutcome>(module, "CallOutcome")
      .def_prop_ro("count", [](const wasm::CallOutcome& self) { return self.status.size(); })
      .def_prop_ro("executed", [](const wasm::CallOutcome& self) { return self.executed; })
      .def("traps",
           [](const wasm::CallOutcome& self) {
             // (instance, trap code, element index) of every instance that did not return.
             nb::list trapped;
             for (std::size_t i = 0; i < self.status.size(); ++i) {
               if (self.status[i] == wasm::device::STATUS_RETURNED) continue;
               trapped.append(nb::make_tuple(i, self.trap[i], self.trap_index[i]));
             }
             return trapped;
           })
      .def("exit_codes",
           [](const wasm::CallOutcome& self) {
             // proc_exit's code per instance that exited, None for the others.
             nb::list codes;
             for (std::size_t i = 0; i < self.status.size(); ++i) {
               const bool exited = i < self.exit_state.size() && self.exit_state[i] == 1;
               codes.append(exited ? nb::object(nb::int_(self.exit_code[i])) : nb::none());
             }
             return codes;
           })
      .def("results_list", &results_as_list, "kinds"_a)
      .def("results_numpy", &results_as_numpy, "kinds"_a)
      .def(
          "raw_results",
          [](const wasm::CallOutcome& self, std::size_t width) {
            // (returned, trap code, element index, result slots) per instance, for the spec runner.
            nb::list rows;
            for (std::size_t i = 0; i < self.status.size(); ++i) {
              nb::list values;
              const bool returned = self.status[i] == wasm::device::STATUS_RETURNED;
              for (std::size_t k = 0; returned && k < width; ++k) values.append(self.results[i * width + k]);
              rows.append(nb::make_tuple(returned, self.trap[i], self.trap_index[i], nb::tuple(values)));
            }
            return rows;
          },
          "width"_a);
}

}  // namespace wavestack::bindings
