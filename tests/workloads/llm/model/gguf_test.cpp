// Specification of the GGUF reader and writer: what round-trips, and which error (field and
// byte offset) each kind of corrupt, truncated or unsupported file gives.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <random>

#include "graphlens/model/gguf_file.h"
#include "graphlens/model/gguf_writer.h"
#include "graphlens/ops/ggml_blocks.h"

namespace graphlens {
namespace {

/// One value of every metadata type, arrays (and an array of arrays) included.
std::vector<GgufKeyValue> every_metadata_type() {
    return {
        {"t.u8", GgufValue::u8(200)},
        {"t.i8", GgufValue::i8(-100)},
        {"t.u16", GgufValue::u16(60000)},
        {"t.i16", GgufValue::i16(-30000)},
        {"t.u32", GgufValue::u32(4000000000u)},
        {"t.i32", GgufValue::i32(-2000000000)},
        {"t.f32", GgufValue::f32(1.5e-5f)},
        {"t.bool", GgufValue::boolean(true)},
        {"t.string", GgufValue::string("llama ünïcode")},
        {"t.u64", GgufValue::u64(0xFFFF'FFFF'FFFF'FFF0ull)},
        {"t.i64", GgufValue::i64(-0x7FFF'FFFF'FFFF'FFF0ll)},
        {"t.f64", GgufValue::f64(3.141592653589793)},
        {"t.array_i32", GgufValue::array(GgufType::i32, {GgufValue::i32(1), GgufValue::i32(-2),
                                                         GgufValue::i32(3)})},
        {"t.array_string",
         GgufValue::array(GgufType::string, {GgufValue::string("<s>"), GgufValue::string("")})},
        {"t.array_empty", GgufValue::array(GgufType::f32, {})},
        {"t.array_nested",
         GgufValue::array(GgufType::array,
                          {GgufValue::array(GgufType::boolean, {GgufValue::boolean(false)}),
                           GgufValue::array(GgufType::u8, {})})},
    };
}

std::vector<float> random_floats(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (auto& x : v) x = dist(rng);
    return v;
}

/// A small valid file: two metadata keys and two tensors. Offsets of its fields are
/// computed from the layout so tests can corrupt precise bytes.
struct SmallFile {
    std::vector<uint8_t> bytes;
    static constexpr uint64_t kVersionAt = 4;
    static constexpr uint64_t kTensorCountAt = 8;
    static constexpr uint64_t kKvCountAt = 16;
    static constexpr uint64_t kFirstKeyAt = 24;
    // metadata[0] = "general.architecture" (string "llama")
    static constexpr uint64_t kFirstTypeAt = kFirstKeyAt + 8 + 20;
    static constexpr uint64_t kFirstValueAt = kFirstTypeAt + 4;
};

SmallFile small_file() {
    GgufWriter w;
    w.set("general.architecture", GgufValue::string("llama"));
    w.set("llama.block_count", GgufValue::u32(2));
    const auto a = random_floats(64, 1);
    const auto b = random_floats(32 * 4, 2);
    w.add_tensor_from_floats("a", {64}, DType::f32, a);
    w.add_tensor_from_floats("b", {32, 4}, DType::q8_0, b);
    return {w.bytes()};
}

GgufError parse_error(const std::vector<uint8_t>& bytes) {
    try {
        GgufFile::parse(bytes, "test.gguf");
    } catch (const GgufError& e) {
        return e;
    }
    ADD_FAILURE() << "parse succeeded on a corrupt file";
    return GgufError("", "", 0, "");
}

template <typename T>
void poke(std::vector<uint8_t>& bytes, uint64_t at, T v) {
    std::memcpy(bytes.data() + at, &v, sizeof(T));
}

TEST(GgufTest, EveryMetadataTypeRoundTrips) {
    for (uint32_t version : {2u, 3u}) {
        GgufWriter w(version);
        for (const auto& kv : every_metadata_type()) w.set(kv.key, kv.value);
        const auto bytes = w.bytes();
        const GgufFile f = GgufFile::parse(bytes);
        EXPECT_EQ(f.version(), version);
        ASSERT_EQ(f.metadata().size(), every_metadata_type().size());
        for (const auto& kv : every_metadata_type()) {
            const GgufValue* v = f.find(kv.key);
            ASSERT_NE(v, nullptr) << kv.key;
            EXPECT_EQ(*v, kv.value) << kv.key;
        }
        EXPECT_TRUE(f.tensors().empty());
        EXPECT_FALSE(f.has_tensor_data());
    }
}

TEST(GgufTest, TypedGettersConvertOrNameTheKey) {
    GgufWriter w;
    w.set("n", GgufValue::u32(7));
    w.set("eps", GgufValue::f32(1e-6f));
    w.set("name", GgufValue::string("x"));
    const auto bytes = w.bytes();
    const GgufFile f = GgufFile::parse(bytes);
    EXPECT_EQ(f.get_u32("n", 0), 7u);
    EXPECT_EQ(f.get_u32("missing", 42), 42u);
    EXPECT_FLOAT_EQ(f.get_f32("eps", 0), 1e-6f);
    EXPECT_EQ(f.get_string("name", ""), "x");
    try {
        f.get_u32("name", 0);
        FAIL() << "string read as u32";
    } catch (const GgufError& e) {
        EXPECT_EQ(e.field(), "metadata 'name'.value");
        EXPECT_EQ(e.offset(), f.value_offset("name"));
        EXPECT_NE(std::string(e.what()).find("string"), std::string::npos) << e.what();
    }
    EXPECT_THROW(f.at("missing"), GgufError);
}

TEST(GgufTest, TensorsRoundTripInEveryWritableType) {
    GgufWriter w;
    w.set("general.alignment", GgufValue::u32(64));
    const auto values = random_floats(64 * 3, 7);
    for (DType t : {DType::f32, DType::f16, DType::q8_0, DType::q4_0})
        w.add_tensor_from_floats(std::string(dtype_name(t)), {64, 3}, t, values);
    const auto bytes = w.bytes();
    const GgufFile f = GgufFile::parse(bytes);
    EXPECT_EQ(f.alignment(), 64u);
    EXPECT_EQ(f.data_offset() % 64, 0u);
    ASSERT_TRUE(f.has_tensor_data());
    ASSERT_EQ(f.tensors().size(), 4u);
    for (DType t : {DType::f32, DType::f16, DType::q8_0, DType::q4_0}) {
        const GgufTensorInfo* info = f.find_tensor(dtype_name(t));
        ASSERT_NE(info, nullptr);
        EXPECT_EQ(info->dims, (std::vector<uint64_t>{64, 3}));
        EXPECT_EQ(ggml_type_to_dtype(info->type), t);
        EXPECT_EQ(info->offset % 64, 0u);
        EXPECT_EQ(info->size, dtype_bytes_for(t, 64 * 3));
        const auto data = f.tensor_data(*info);
        // The bytes are exactly what the quantizer produced.
        const auto expected = ggml::quantize(t, values);
        ASSERT_EQ(data.size(), expected.size());
        EXPECT_TRUE(std::equal(data.begin(), data.end(), expected.begin())) << dtype_name(t);
    }
}

TEST(GgufTest, OpenMemoryMapsAFile) {
    const auto path = std::filesystem::temp_directory_path() / "graphlens_gguf_open_test.gguf";
    {
        GgufWriter w;
        w.set("general.architecture", GgufValue::string("llama"));
        const auto a = random_floats(64, 3);
        w.add_tensor_from_floats("a", {64}, DType::f32, a);
        w.write(path);
        const GgufFile f = GgufFile::open(path);
        EXPECT_EQ(f.source(), path.string());
        EXPECT_EQ(f.get_string("general.architecture", ""), "llama");
        const auto data = f.tensor_data(f.tensors().at(0));
        ASSERT_EQ(data.size(), 64u * 4);
        float first;
        std::memcpy(&first, data.data(), 4);
        EXPECT_EQ(first, a[0]);
    }
    std::filesystem::remove(path);
    EXPECT_THROW(GgufFile::open(path), std::system_error);
}

TEST(GgufTest, MetadataOnlyFileKeepsShapesWithoutData) {
    GgufWriter w;
    const auto a = random_floats(64, 3);
    w.add_tensor_from_floats("a", {32, 2}, DType::q4_0, a);
    w.omit_tensor_data(true);
    const auto bytes = w.bytes();
    const GgufFile f = GgufFile::parse(bytes);
    EXPECT_FALSE(f.has_tensor_data());
    ASSERT_EQ(f.tensors().size(), 1u);
    EXPECT_EQ(f.tensors()[0].size, 36u);
    EXPECT_TRUE(f.tensor_data(f.tensors()[0]).empty());
}

TEST(GgufTest, ShapeOnlyTensorsNeedAMetadataOnlyFile) {
    GgufWriter w;
    w.add_tensor_shape("big", {4096, 128256}, GgmlType::q4_0);
    EXPECT_THROW(w.bytes(), std::logic_error);
    w.omit_tensor_data(true);
    const auto bytes = w.bytes();
    const GgufFile f = GgufFile::parse(bytes);
    EXPECT_EQ(f.tensors().at(0).size, dtype_bytes_for(DType::q4_0, 4096ull * 128256));
    EXPECT_THROW(w.add_tensor("wrong", {32}, GgmlType::q8_0, std::vector<uint8_t>(33)),
                 std::invalid_argument);
}

// --- corrupt, truncated and unsupported files: each error names its field and offset

TEST(GgufErrorTest, BadMagic) {
    auto bytes = small_file().bytes;
    bytes[0] = 'X';
    const auto e = parse_error(bytes);
    EXPECT_EQ(e.field(), "header.magic");
    EXPECT_EQ(e.offset(), 0u);
    EXPECT_EQ(e.source(), "test.gguf");
}

TEST(GgufErrorTest, EmptyFile) {
    const auto e = parse_error({});
    EXPECT_EQ(e.field(), "header.magic");
    EXPECT_EQ(e.offset(), 0u);
}

TEST(GgufErrorTest, UnsupportedVersions) {
    for (uint32_t version : {1u, 4u, 0x03000000u}) {
        auto bytes = small_file().bytes;
        poke<uint32_t>(bytes, SmallFile::kVersionAt, version);
        const auto e = parse_error(bytes);
        EXPECT_EQ(e.field(), "header.version");
        EXPECT_EQ(e.offset(), SmallFile::kVersionAt);
    }
    auto bytes = small_file().bytes;
    poke<uint32_t>(bytes, SmallFile::kVersionAt, 0x03000000u);
    EXPECT_NE(std::string(parse_error(bytes).what()).find("big-endian"), std::string::npos);
}

TEST(GgufErrorTest, HugeCountsAreRejectedBeforeAllocating) {
    auto bytes = small_file().bytes;
    poke<uint64_t>(bytes, SmallFile::kKvCountAt, ~uint64_t{0});
    auto e = parse_error(bytes);
    EXPECT_EQ(e.field(), "header.metadata_kv_count");
    EXPECT_EQ(e.offset(), SmallFile::kKvCountAt);

    bytes = small_file().bytes;
    poke<uint64_t>(bytes, SmallFile::kTensorCountAt, uint64_t{1} << 40);
    e = parse_error(bytes);
    EXPECT_EQ(e.field(), "header.tensor_count");
    EXPECT_EQ(e.offset(), SmallFile::kTensorCountAt);
}

TEST(GgufErrorTest, StringLengthBeyondTheFile) {
    auto bytes = small_file().bytes;
    poke<uint64_t>(bytes, SmallFile::kFirstKeyAt, uint64_t{1} << 50);
    const auto e = parse_error(bytes);
    EXPECT_EQ(e.field(), "metadata[0].key");
    EXPECT_EQ(e.offset(), SmallFile::kFirstKeyAt);
}

TEST(GgufErrorTest, UnknownValueType) {
    auto bytes = small_file().bytes;
    poke<uint32_t>(bytes, SmallFile::kFirstTypeAt, 13);
    const auto e = parse_error(bytes);
    EXPECT_EQ(e.field(), "metadata 'general.architecture'.type");
    EXPECT_EQ(e.offset(), SmallFile::kFirstTypeAt);
}

TEST(GgufErrorTest, ArrayCountBeyondTheFile) {
    GgufWriter w;
    w.set("arr", GgufValue::array(GgufType::u64, {GgufValue::u64(1)}));
    auto bytes = w.bytes();
    const uint64_t value_at = 24 + 8 + 3 + 4;
    poke<uint64_t>(bytes, value_at + 4, uint64_t{1} << 40);
    const auto e = parse_error(bytes);
    EXPECT_EQ(e.field(), "metadata 'arr'.value.count");
    EXPECT_EQ(e.offset(), value_at + 4);
}

TEST(GgufErrorTest, InvalidBool) {
    GgufWriter w;
    w.set("flag", GgufValue::boolean(true));
    auto bytes = w.bytes();
    const uint64_t value_at = 24 + 8 + 4 + 4;
    bytes[value_at] = 2;
    const auto e = parse_error(bytes);
    EXPECT_EQ(e.field(), "metadata 'flag'.value");
    EXPECT_EQ(e.offset(), value_at);
}

TEST(GgufErrorTest, DuplicateKey) {
    // The writer refuses duplicates, so write two distinct keys and rename the second.
    GgufWriter w;
    w.set("aa", GgufValue::u8(1));
    w.set("ab", GgufValue::u8(2));
    auto bytes = w.bytes();
    const uint64_t second_key_at = 24 + (8 + 2 + 4 + 1);
    bytes[second_key_at + 8 + 1] = 'a';
    const auto e = parse_error(bytes);
    EXPECT_EQ(e.field(), "metadata[1].key");
    EXPECT_EQ(e.offset(), second_key_at);
}

TEST(GgufErrorTest, AlignmentMustBeAU32PowerOfTwo) {
    GgufWriter w;
    w.set("general.alignment", GgufValue::u32(32));
    auto bytes = w.bytes();
    const uint64_t value_at = 24 + 8 + 17 + 4;
    poke<uint32_t>(bytes, value_at, 48);
    auto e = parse_error(bytes);
    EXPECT_EQ(e.field(), "metadata 'general.alignment'.value");
    EXPECT_EQ(e.offset(), value_at);

    // As a u64 (the writer refuses that, so retype the value and widen it by hand).
    bytes = w.bytes();
    const uint64_t type_at = value_at - 4;
    poke<uint32_t>(bytes, type_at, static_cast<uint32_t>(GgufType::u64));
    bytes.insert(bytes.end(), 4, 0);
    e = parse_error(bytes);
    EXPECT_EQ(e.field(), "metadata 'general.alignment'.type");
    EXPECT_EQ(e.offset(), type_at);
}

/// Offset of tensor info `index` in a file written by small_file().
uint64_t tensor_info_at(const std::vector<uint8_t>& bytes, size_t index) {
    return GgufFile::parse(bytes).tensors().at(index).info_offset;
}

TEST(GgufErrorTest, TensorDimsAndTypeAreChecked) {
    const auto good = small_file().bytes;
    const uint64_t b_at = tensor_info_at(good, 1);  // name "b": 8 + 1 bytes
    const uint64_t ndims_at = b_at + 9;

    auto bytes = good;
    poke<uint32_t>(bytes, ndims_at, 5);
    auto e = parse_error(bytes);
    EXPECT_EQ(e.field(), "tensor 'b'.n_dims");
    EXPECT_EQ(e.offset(), ndims_at);

    bytes = good;
    poke<uint64_t>(bytes, ndims_at + 4 + 8, 0);
    e = parse_error(bytes);
    EXPECT_EQ(e.field(), "tensor 'b'.dims[1]");
    EXPECT_EQ(e.offset(), ndims_at + 4 + 8);

    bytes = good;
    const uint64_t type_at = ndims_at + 4 + 16;
    poke<uint32_t>(bytes, type_at, 99);
    e = parse_error(bytes);
    EXPECT_EQ(e.field(), "tensor 'b'.type");
    EXPECT_EQ(e.offset(), type_at);

    bytes = good;
    poke<uint64_t>(bytes, ndims_at + 4, 48);  // q8_0 rows must be multiples of 32
    e = parse_error(bytes);
    EXPECT_EQ(e.field(), "tensor 'b'.dims[0]");
    EXPECT_EQ(e.offset(), ndims_at + 4);
}

TEST(GgufErrorTest, TensorOffsetsAreChecked) {
    const auto good = small_file().bytes;
    const uint64_t offset_at = tensor_info_at(good, 1) + 9 + 4 + 16 + 4;

    auto bytes = good;
    poke<uint64_t>(bytes, offset_at, 33);
    auto e = parse_error(bytes);
    EXPECT_EQ(e.field(), "tensor 'b'.offset");
    EXPECT_EQ(e.offset(), offset_at);

    bytes = good;
    poke<uint64_t>(bytes, offset_at, ~uint64_t{0} - 31);
    e = parse_error(bytes);
    EXPECT_EQ(e.field(), "tensor 'b'.offset");

    bytes = good;
    poke<uint64_t>(bytes, offset_at, 1 << 20);
    e = parse_error(bytes);
    EXPECT_EQ(e.field(), "tensor 'b'.offset");
    EXPECT_EQ(e.offset(), offset_at);

    // Data that starts inside the file but runs past its end.
    bytes = good;
    const GgufFile f = GgufFile::parse(good);
    const uint64_t past_end = (good.size() - f.data_offset() - 1) / 32 * 32;
    poke<uint64_t>(bytes, offset_at, past_end);
    e = parse_error(bytes);
    EXPECT_EQ(e.field(), "tensor 'b'.data");
    EXPECT_EQ(e.offset(), f.data_offset() + past_end);
}

TEST(GgufErrorTest, EveryTruncationIsAnErrorOrMetadataOnly) {
    const auto good = small_file().bytes;
    const GgufFile whole = GgufFile::parse(good);
    const GgufTensorInfo& last = whole.tensors().back();
    const uint64_t infos_end = last.info_offset + 8 + last.name.size() + 4 + 8 * 2 + 4 + 8;
    const uint64_t data_end = whole.data_offset() + last.offset + last.size;
    for (size_t cut = 0; cut < good.size(); ++cut) {
        const std::vector<uint8_t> bytes(good.begin(), good.begin() + cut);
        if (cut >= infos_end && cut <= whole.data_offset()) {
            // Cut after the last tensor info: shapes without data.
            EXPECT_FALSE(GgufFile::parse(bytes).has_tensor_data()) << "cut at " << cut;
            continue;
        }
        if (cut >= data_end) {
            // Only the padding after the last tensor is missing.
            EXPECT_TRUE(GgufFile::parse(bytes).has_tensor_data()) << "cut at " << cut;
            continue;
        }
        try {
            GgufFile::parse(bytes, "test.gguf");
            ADD_FAILURE() << "truncated at " << cut << " parsed";
        } catch (const GgufError& e) {
            EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos)
                << "cut at " << cut << ": " << e.what();
            EXPECT_LE(e.offset(), good.size());
        }
    }
}

TEST(GgufErrorTest, RandomCorruptionsParseOrThrowGgufErrorOnly) {
    // Thousands of files with random bytes overwritten (metadata of every type, nested
    // arrays and tensors included): each parses or throws GgufError; nothing else escapes.
    GgufWriter w;
    for (const auto& kv : every_metadata_type()) w.set(kv.key, kv.value);
    const auto values = random_floats(64, 9);
    w.add_tensor_from_floats("t", {32, 2}, DType::q4_0, values);
    const auto good = w.bytes();
    std::mt19937 rng(4242);
    size_t errors = 0;
    for (int trial = 0; trial < 5000; ++trial) {
        auto bytes = good;
        const int flips = 1 + int(rng() % 4);
        for (int i = 0; i < flips; ++i) bytes[rng() % bytes.size()] = uint8_t(rng());
        if (rng() % 4 == 0) bytes.resize(rng() % bytes.size());
        try {
            const GgufFile f = GgufFile::parse(bytes);
            for (const auto& t : f.tensors()) {
                const auto data = f.tensor_data(t);
                EXPECT_TRUE(data.empty() ||
                            (data.data() >= bytes.data() &&
                             data.data() + data.size() <= bytes.data() + bytes.size()));
            }
        } catch (const GgufError& e) {
            ++errors;
            EXPECT_LE(e.offset(), bytes.size()) << e.what();
        }
    }
    EXPECT_GT(errors, 1000u);
}

TEST(GgufErrorTest, ErrorMessageNamesSourceFieldAndOffset) {
    auto bytes = small_file().bytes;
    poke<uint32_t>(bytes, SmallFile::kVersionAt, 9);
    const auto e = parse_error(bytes);
    EXPECT_STREQ(e.what(),
                 "test.gguf: header.version at byte 4: version 9 is not supported "
                 "(only 2 and 3)");
}

}  // namespace
}  // namespace graphlens
