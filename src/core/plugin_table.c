/*
 * plugin_table.c — the plugin table: how the dispatcher reaches this copy of
 * the core. Each plugin's dmlPluginGetTable returns dml_core_plugin_table(its
 * backend); every handle this core creates points at the table first.
 */
#include "core.h"

const DMLPluginTable* dml_core_plugin_table(const dml_backend* backend, uint32_t abi_version,
    const DMLHostServices* host)
{
    if (abi_version != DML_PLUGIN_ABI_VERSION || !backend)
        return NULL;
    dml_error_set_host(host);
    dml_core_backend = backend;
    DMLPluginTable* t = &dml_core_table;
    t->AbiVersion = DML_PLUGIN_ABI_VERSION;
    t->StructSize = sizeof(DMLPluginTable);
    t->Backend = backend->name;
    t->Probe = backend->probe;
    t->GetAdapterInfo = dml_plugin_get_adapter_info;
    t->AddRef = dml_host_add_ref;
    t->Release = dml_host_release;
    t->SetName = dml_set_name;
    t->CreateDevice = dml_create_device;
    t->DeviceGetDeviceRemovedReason = dml_device_get_removed_reason;
    t->DeviceCheckFeatureSupport = dml_device_check_feature_support;
    t->DeviceGetAdapterInfo = dml_device_get_adapter_info;
    t->DeviceSetThreadLimit = dml_device_set_thread_limit;
    t->DeviceCreateOperator = dml_create_operator;
    t->DeviceCompileOperator = dml_compile_operator;
    t->DeviceCompileGraph = dml_compile_graph;
    t->DeviceCreateOperatorInitializer = dml_create_operator_initializer;
    t->DispatchableGetBindingProperties = dml_dispatchable_binding_properties;
    t->DeviceCreateBindingTable = dml_binding_table_create;
    t->BindingTableBindInputs = dml_binding_table_bind_inputs;
    t->BindingTableBindOutputs = dml_binding_table_bind_outputs;
    t->BindingTableBindTemporaryResource = dml_binding_table_bind_temporary;
    t->BindingTableBindPersistentResource = dml_binding_table_bind_persistent;
    t->BindingTableReset = dml_binding_table_reset;
    t->DeviceCreateCommandRecorder = dml_create_command_recorder;
    t->DeviceCreateCommandQueue = dml_create_command_queue;
    t->CommandRecorderRecordDispatch = dml_record_dispatch;
    t->CommandQueueSynchronize = dml_queue_synchronize;
    t->DeviceCreateBuffer = dml_create_buffer;
    t->DeviceWrapBuffer = dml_wrap_buffer;
    t->BufferGetNativePointer = dml_buffer_native_pointer;
    t->CommandQueueWriteBuffer = dml_queue_write_buffer;
    t->CommandQueueReadBuffer = dml_queue_read_buffer;
    return t;
}
