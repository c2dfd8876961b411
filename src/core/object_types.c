#include "object_types.h"

#include <dml/dml_plugin.h>

const char* dml_object_type_name(uint32_t type)
{
    switch (type) {
    case DML_OBJECT_TYPE_DEVICE: return "DMLDevice";
    case DML_OBJECT_TYPE_OPERATOR: return "DMLOperator";
    case DML_OBJECT_TYPE_COMPILED_OPERATOR: return "DMLCompiledOperator";
    case DML_OBJECT_TYPE_OPERATOR_INITIALIZER: return "DMLOperatorInitializer";
    case DML_OBJECT_TYPE_BINDING_TABLE: return "DMLBindingTable";
    case DML_OBJECT_TYPE_COMMAND_RECORDER: return "DMLCommandRecorder";
    case DML_OBJECT_TYPE_COMMAND_QUEUE: return "DMLCommandQueue";
    case DML_OBJECT_TYPE_BUFFER: return "DMLBuffer";
    }
    return "object of unknown type";
}
