#include "runtime/call_view.h"

#include <stdexcept>
#include <string>

namespace edgec {

const AttrDecl& declared_attr_of(const OpDecl* decl, std::string_view op, std::string_view name) {
  const AttrDecl* a = decl ? decl->attr(name) : nullptr;
  if (!a)
    throw std::logic_error(std::string(op) + " reads attribute '" + std::string(name) +
                           "', which its declaration does not have");
  return *a;
}

double CallView::float_attr(std::string_view name) const { return declared_attr_of(decl, op, name).float_value(attrs); }
int64_t CallView::int_attr(std::string_view name) const { return declared_attr_of(decl, op, name).int_value(attrs); }
bool CallView::bool_attr(std::string_view name) const { return declared_attr_of(decl, op, name).bool_value(attrs); }
std::string_view CallView::string_attr(std::string_view name) const {
  return declared_attr_of(decl, op, name).string_value(attrs);
}

}  // namespace edgec
