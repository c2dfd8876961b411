// test_cxx.cpp — <dml/dml.h> compiles as C++ (-Wpedantic -Werror) and links
// from a C++ translation unit: create a device, run the SLICE1 example of
// operators.md and compare with the spec's output. Plain main (no Check).
#include <dml/dml.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

static_assert(std::is_same<DML_RESULT, std::int32_t>::value, "DML_RESULT is int32_t");
static_assert(std::is_same<UINT, std::uint32_t>::value, "UINT");
static_assert(std::is_same<INT, std::int32_t>::value, "INT");
static_assert(std::is_same<UINT64, std::uint64_t>::value, "UINT64");
static_assert(std::is_same<BOOL, std::int32_t>::value, "BOOL");
static_assert(std::is_same<decltype(DML_SLICE1_OPERATOR_DESC::InputWindowStrides), const INT*>::value,
              "InputWindowStrides is const int32_t*");
static_assert(DML_OPERATOR_SLICE1 == 111 && DML_OPERATOR_SLICE == 60 && DML_OPERATOR_REVERSE_SUBSEQUENCES == 106,
              "operator type values");
static_assert(DML_E_INVALIDARG == static_cast<DML_RESULT>(0x80070057u), "E_INVALIDARG");

static int failures = 0;

#define CHECK(cond)                                                                        \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            std::fprintf(stderr, "%s:%d: CHECK(%s) failed; last error: %s\n", __FILE__,    \
                         __LINE__, #cond, dmlGetLastErrorMessage());                        \
            ++failures;                                                                    \
        }                                                                                  \
    } while (0)

namespace {

struct Device {
    DMLDevice device = nullptr;
    DMLCommandQueue queue = nullptr;
    DMLCommandRecorder recorder = nullptr;
    ~Device()
    {
        dmlRelease(recorder);
        dmlRelease(queue);
        dmlRelease(device);
    }
};

} // namespace

int main()
{
    const char* backend = std::getenv("DML_TEST_BACKEND");
    DML_DEVICE_DESC dd{};
    dd.Size = sizeof dd;
    dd.Backend = (backend && *backend) ? backend : "cpu";
    dd.MinimumFeatureLevel = DML_FEATURE_LEVEL_5_0;
    Device d;
    CHECK(dmlCreateDevice(&dd, &d.device) == DML_S_OK);
    if (!d.device)
        return EXIT_FAILURE;
    CHECK(dmlDeviceCreateCommandQueue(d.device, nullptr, &d.queue) == DML_S_OK);
    CHECK(dmlDeviceCreateCommandRecorder(d.device, &d.recorder) == DML_S_OK);

    const UINT in_sizes[4] = { 1, 1, 4, 4 }, out_sizes[4] = { 1, 1, 2, 2 };
    const UINT offsets[4] = { 0, 0, 0, 1 }, window[4] = { 1, 1, 4, 3 };
    const INT strides[4] = { 1, 1, -2, 2 };
    DML_BUFFER_TENSOR_DESC bin{ DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, in_sizes, nullptr, 64, 0 };
    DML_BUFFER_TENSOR_DESC bout{ DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, out_sizes, nullptr, 16, 0 };
    CHECK(DMLCalcBufferTensorSize(bin.DataType, 4, in_sizes, nullptr) == 64);
    DML_TENSOR_DESC tin{ DML_TENSOR_TYPE_BUFFER, &bin }, tout{ DML_TENSOR_TYPE_BUFFER, &bout };
    DML_SLICE1_OPERATOR_DESC s1{ &tin, &tout, 4, offsets, window, strides };
    DML_OPERATOR_DESC od{ DML_OPERATOR_SLICE1, &s1 };

    DMLOperator op = nullptr;
    DMLCompiledOperator compiled = nullptr;
    CHECK(dmlDeviceCreateOperator(d.device, &od, &op) == DML_S_OK);
    CHECK(dmlDeviceCompileOperator(d.device, op, DML_EXECUTION_FLAG_NONE, &compiled) == DML_S_OK);

    std::vector<float> input(16);
    for (int i = 0; i < 16; ++i)
        input[i] = static_cast<float>(i + 1);
    DMLBuffer in = nullptr, out = nullptr;
    CHECK(dmlDeviceCreateBuffer(d.device, 64, &in) == DML_S_OK);
    CHECK(dmlDeviceCreateBuffer(d.device, 16, &out) == DML_S_OK);
    CHECK(dmlCommandQueueWriteBuffer(d.queue, in, 0, input.data(), 64) == DML_S_OK);

    DML_BINDING_TABLE_DESC td{ compiled }; // a DMLCompiledOperator converts to DMLDispatchable without a cast
    DMLBindingTable table = nullptr;
    CHECK(dmlDeviceCreateBindingTable(d.device, &td, &table) == DML_S_OK);
    DML_BUFFER_BINDING bi{ in, 0, 64 }, bo{ out, 0, 16 };
    DML_BINDING_DESC di{ DML_BINDING_TYPE_BUFFER, &bi }, dout{ DML_BINDING_TYPE_BUFFER, &bo };
    CHECK(dmlBindingTableBindInputs(table, 1, &di) == DML_S_OK);
    CHECK(dmlBindingTableBindOutputs(table, 1, &dout) == DML_S_OK);
    CHECK(dmlCommandRecorderRecordDispatch(d.recorder, d.queue, compiled, table) == DML_S_OK);

    float got[4] = { 0, 0, 0, 0 };
    CHECK(dmlCommandQueueReadBuffer(d.queue, out, 0, got, sizeof got) == DML_S_OK);
    const float expected[4] = { 14, 16, 6, 8 };
    for (int i = 0; i < 4; ++i) {
        if (got[i] != expected[i]) {
            std::fprintf(stderr, "output[%d] = %g, expected %g\n", i, static_cast<double>(got[i]),
                         static_cast<double>(expected[i]));
            ++failures;
        }
    }
    CHECK(dmlRelease(nullptr) == 0);

    dmlRelease(table);
    dmlRelease(in);
    dmlRelease(out);
    dmlRelease(compiled);
    dmlRelease(op);
    if (failures)
        std::fprintf(stderr, "test_api_cxx: %d failure(s)\n", failures);
    else
        std::printf("test_api_cxx: OK\n");
    return failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
