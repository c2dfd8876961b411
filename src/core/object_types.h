/*
 * object_types.h — the API's name of each object type, for messages. Shared by
 * the core and the dispatcher (one list).
 */
#ifndef DML_CORE_OBJECT_TYPES_H
#define DML_CORE_OBJECT_TYPES_H

#include <stdint.h>

/* "DMLBuffer", ...; "object of unknown type" for anything else. */
const char* dml_object_type_name(uint32_t type);

#endif /* DML_CORE_OBJECT_TYPES_H */
