// Bad input gives a clear error (naming what and where), never a crash.
#include <gtest/gtest.h>

#include <cstdlib>

#include "gpu_fixture.h"
#include "graphlens/vulkan/graph_session.h"

namespace graphlens::test {
namespace {

// Runs `f`, expects an exception of type E whose message contains every fragment.
template <class E, class F>
void expect_error(F&& f, std::initializer_list<const char*> fragments) {
    try {
        f();
        ADD_FAILURE() << "expected an exception";
    } catch (const E& e) {
        for (const char* frag : fragments)
            EXPECT_NE(std::string(e.what()).find(frag), std::string::npos)
                << "message '" << e.what() << "' lacks '" << frag << "'";
    }
}

class BadInputTest : public GpuTest {
  protected:
    void SetUp() override {
        GpuTest::SetUp();
        buf = memory->allocate("activations", 1024);
        x = f32(buf, 64, 0);
        y = f32(buf, 64, 256);
        z = f32(buf, 64, 512);
    }
    AllocationId buf = 0;
    TensorView x, y, z;
};

TEST_F(BadInputTest, ViewOutsideItsAllocation) {
    expect_error<std::out_of_range>([&] { memory->view(buf, DType::f32, {64}, 1000); },
                                    {"activations", "1024"});
    TensorView beyond = x;
    beyond.offset = 1008;  // 16-aligned, but 256 bytes from there leave the 1024
    for (bool recording : {false, true}) {
        auto s = recording ? executor->begin_recorded() : executor->begin();
        expect_error<std::out_of_range>(
            [&] { s.dispatch(binary_dispatch("add_f32", x, y, beyond, "blk.0.bad_out")); },
            {"blk.0.bad_out", "add_f32", "binding 2", "activations"});
    }
}

TEST_F(BadInputTest, MissingBinding) {
    for (bool recording : {false, true}) {
        auto s = recording ? executor->begin_recorded() : executor->begin();
        DispatchDesc d = binary_dispatch("mul_f32", x, y, z, "blk.1.ffn_mul");
        d.bindings.pop_back();
        expect_error<std::invalid_argument>([&] { s.dispatch(d); },
                                            {"mul_f32", "binding 2", "blk.1.ffn_mul", "not bound"});
        // The failed dispatch left nothing behind.
        EXPECT_EQ(s.dispatch_count(), 0u);
        EXPECT_EQ(s.barrier_count(), 0u);
    }
}

TEST_F(BadInputTest, WrongPushConstantSizeAndUnknownKernel) {
    auto s = executor->begin();
    DispatchDesc d = binary_dispatch("add_f32", x, y, z, "blk.2.add");
    d.push_constants.resize(4);
    expect_error<std::invalid_argument>([&] { s.dispatch(d); }, {"blk.2.add", "push constants"});
    d = binary_dispatch("add_f32", x, y, z, "blk.2.add");
    d.kernel = "no_such_kernel";
    expect_error<std::out_of_range>([&] { s.dispatch(d); }, {"no_such_kernel"});
}

TEST_F(BadInputTest, TooLargeAllocation) {
    const uint64_t too_big = device().facts().max_allocation_size + 1;
    expect_error<std::length_error>([&] { memory->allocate("kv_cache_huge", too_big); },
                                    {"kv_cache_huge", std::to_string(too_big).c_str()});
    expect_error<std::length_error>([&] { memory->allocate("empty", 0); }, {"empty"});
    EXPECT_EQ(memory->allocation_count(), 1u);  // only the fixture's
}

TEST_F(BadInputTest, MisalignedViewOffset) {
    const uint64_t align = device().facts().storage_offset_alignment;
    if (align <= 1) GTEST_SKIP() << "device has no offset alignment";
    expect_error<std::invalid_argument>([&] { memory->view(buf, DType::f32, {4}, 4); },
                                        {"alignment", "activations"});
}

TEST_F(BadInputTest, ReplayOfAGraphWithUnknownAllocation) {
    auto s = executor->begin_recorded();
    s.dispatch(binary_dispatch("add_f32", x, y, z, "ok"));
    ComputeGraph g = s.finish_recording();
    g.nodes[0].bindings[2].view.allocation = 7;
    expect_error<std::invalid_argument>([&] { executor->execute(g); }, {"node 0", "allocation 7"});
}

// A fused graph may carry zeroed memory of its fused kernels' own (FusionScratch): allocations
// after the capture's, which the executor creates, zeroed, when the memory lacks them. One of
// another usage is missing memory, and a scratch id this memory gives to another buffer would
// hand the kernel foreign data: both are errors naming the allocation.
TEST_F(BadInputTest, FusedScratchIsCreatedZeroedAndNeverTakenFromAnotherBuffer) {
    auto s = executor->begin_recorded();
    s.dispatch(binary_dispatch("add_f32", x, y, z, "ok"));
    const ComputeGraph captured = s.finish_recording();
    auto with = [](ComputeGraph g, std::string name, AllocationUsage usage) {
        AllocationInfo a;
        a.id = static_cast<AllocationId>(g.allocations.size());
        a.name = std::move(name);
        a.size = 64;
        a.usage = usage;
        g.allocations.push_back(a);
        return g;
    };

    const ComputeGraph fused = with(captured, "ok.arrivals", AllocationUsage::scratch);
    executor->execute(fused);
    ASSERT_EQ(memory->allocation_count(), 2u);
    EXPECT_EQ(memory->download(1, 0, 64), std::vector<uint8_t>(64, 0));
    executor->execute(fused);  // held now: nothing added
    EXPECT_EQ(memory->allocation_count(), 2u);

    expect_error<std::invalid_argument>(
        [&] { executor->execute(with(captured, "other.arrivals", AllocationUsage::scratch)); },
        {"other.arrivals", "ok.arrivals"});
    expect_error<std::invalid_argument>(
        [&] { executor->execute(with(fused, "inputs", AllocationUsage::input)); },
        {"allocation 2", "inputs", "not in this device memory"});
}

TEST_F(BadInputTest, UploadAndDownloadOutOfRange) {
    std::vector<uint8_t> bytes(64);
    expect_error<std::out_of_range>([&] { memory->upload(buf, bytes, 1000); }, {"activations"});
    expect_error<std::out_of_range>([&] { memory->download(buf, 1000, 64); }, {"activations"});
    expect_error<std::out_of_range>([&] { memory->download(5, 0, 4); }, {"allocation id 5"});
}

// Vulkan errors name the call and the result; a lost device is its own exception type, so
// the Runner and the GUI can stop using the device instead of trying the next mode on it.
TEST(VkCheckTest, NamesTheResultAndTypesALostDevice) {
    EXPECT_NO_THROW(vk_check(VK_SUCCESS, "vkQueueSubmit"));
    try {
        vk_check(VK_ERROR_OUT_OF_DEVICE_MEMORY, "vkAllocateMemory");
        ADD_FAILURE() << "no exception";
    } catch (const DeviceLost&) {
        ADD_FAILURE() << "out of memory is not a lost device";
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(
            e.what(),
            "Vulkan: vkAllocateMemory failed (VK_ERROR_OUT_OF_DEVICE_MEMORY, VkResult -2)");
    }
    try {
        vk_check(VK_ERROR_DEVICE_LOST, "vkQueueSubmit");
        ADD_FAILURE() << "no exception";
    } catch (const DeviceLost& e) {
        EXPECT_NE(std::string(e.what()).find("VK_ERROR_DEVICE_LOST"), std::string::npos);
    }
    EXPECT_EQ(vk_result_name(static_cast<VkResult>(-12345)), "VkResult -12345");
}

TEST(DeviceOptionsTest, MalformedFenceSpinVariableNamesItself) {
    ::setenv("GRAPHLENS_FENCE_SPIN_US", "2ms", 1);
    expect_error<std::runtime_error>([] { Device d; }, {"GRAPHLENS_FENCE_SPIN_US", "'2ms'"});
    ::unsetenv("GRAPHLENS_FENCE_SPIN_US");
}

TEST(DeviceOptionsTest, FenceSpinComesFromOptionsOrEnvironment) {
    Device::Options o;
    o.fence_spin_us = 0;
    EXPECT_EQ(Device(o).fence_spin_us(), 0u);
    ::setenv("GRAPHLENS_FENCE_SPIN_US", "150", 1);
    EXPECT_EQ(Device().fence_spin_us(), 150u);
    ::unsetenv("GRAPHLENS_FENCE_SPIN_US");
    // Neither: a GPU polls for a whole prefill step, a CPU device briefly.
    const Device d;
    EXPECT_EQ(d.fence_spin_us(), d.facts().type == DeviceType::cpu ? 2000u : 50000u);
}

}  // namespace
}  // namespace graphlens::test
