#include "base/error.h"

namespace edgec {

const char* error_name(Error error) {
  switch (error) {
    case Error::Ok: return "Ok";
    case Error::Internal: return "Internal";
    case Error::NotSupported: return "NotSupported";
    case Error::OutOfMemory: return "OutOfMemory";
    case Error::Cancelled: return "Cancelled";
    case Error::InvalidArgument: return "InvalidArgument";
    case Error::InvalidType: return "InvalidType";
    case Error::InvalidShape: return "InvalidShape";
    case Error::IndexOutOfRange: return "IndexOutOfRange";
    case Error::NotFound: return "NotFound";
    case Error::InvalidProgram: return "InvalidProgram";
    case Error::AccessFailed: return "AccessFailed";
    case Error::DelegateInvalidCompatibility: return "DelegateInvalidCompatibility";
    case Error::DelegateInvalidHandle: return "DelegateInvalidHandle";
    case Error::DelegateMissing: return "DelegateMissing";
  }
  return "Unknown";
}

namespace {
thread_local std::string tls_error_detail;
}

void set_error_detail(std::string detail) { tls_error_detail = std::move(detail); }
const std::string& error_detail() { return tls_error_detail; }

Error fail(Error error, std::string detail) {
  set_error_detail(std::move(detail));
  return error;
}

}  // namespace edgec
