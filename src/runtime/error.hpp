// Typed errors of the runtime layer. Every failure that reaches a user names what failed:
// the Vulkan call, the shader line, or the argument.
#pragma once

#include <stdexcept>
#include <string>

namespace wavestack::runtime {

// Base of every error the runtime raises, so bindings can map the whole family at once.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A Vulkan entry point returned a failure code.
class VulkanError : public Error {
 public:
  VulkanError(std::string call, int result);
  [[nodiscard]] const std::string& call() const noexcept { return call_; }
  [[nodiscard]] int result() const noexcept { return result_; }

 private:
  std::string call_;
  int result_;
};

// GLSL that glslang rejected; the message carries glslang's log with line numbers.
class ShaderCompileError : public Error {
 public:
  explicit ShaderCompileError(const std::string& log) : Error("shader compilation failed:\n" + log) {}
};

// The requested device does not exist, is not allowed, or lacks a needed feature.
class DeviceError : public Error {
 public:
  using Error::Error;
};

// Bad input from a caller; the message starts with the argument's name.
class InvalidArgument : public std::invalid_argument {
 public:
  InvalidArgument(const std::string& argument, const std::string& problem)
      : std::invalid_argument(argument + ": " + problem), argument_(argument) {}
  [[nodiscard]] const std::string& argument() const noexcept { return argument_; }

 private:
  std::string argument_;
};

// Readable name of a VkResult value (kept as int so this header needs no Vulkan headers).
[[nodiscard]] const char* vulkan_result_name(int result) noexcept;

}  // namespace wavestack::runtime
