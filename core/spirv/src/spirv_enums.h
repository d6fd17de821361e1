#pragma once
// The few SPIR-V numbers reflection needs, with their names from the SPIR-V specification
// (unified1). Debian's spirv-headers are not a build dependency, so they are spelled out here.
#include <cstdint>

namespace graphlens::spirv {

inline constexpr uint32_t kMagic = 0x07230203u;
inline constexpr uint32_t kMagicSwapped = 0x03022307u;
inline constexpr uint32_t kVersion1_4 = 0x00010400u;

namespace op {
inline constexpr uint32_t Undef = 1, Name = 5, MemberName = 6, String = 7, Line = 8,
                          ExtInstImport = 11, ExtInst = 12, MemoryModel = 14, EntryPoint = 15,
                          ExecutionMode = 16, Capability = 17;
inline constexpr uint32_t TypeVoid = 19, TypeBool = 20, TypeInt = 21, TypeFloat = 22,
                          TypeVector = 23, TypeMatrix = 24, TypeImage = 25, TypeSampler = 26,
                          TypeSampledImage = 27, TypeArray = 28, TypeRuntimeArray = 29,
                          TypeStruct = 30, TypeOpaque = 31, TypePointer = 32, TypeFunction = 33,
                          TypeEvent = 34, TypeDeviceEvent = 35, TypeReserveId = 36, TypeQueue = 37,
                          TypePipe = 38, TypeForwardPointer = 39;
inline constexpr uint32_t ConstantTrue = 41, ConstantFalse = 42, Constant = 43,
                          ConstantComposite = 44, ConstantSampler = 45, ConstantNull = 46,
                          SpecConstantTrue = 48, SpecConstantFalse = 49, SpecConstant = 50,
                          SpecConstantComposite = 51, SpecConstantOp = 52;
inline constexpr uint32_t Function = 54, FunctionParameter = 55, FunctionEnd = 56,
                          FunctionCall = 57, Variable = 59, ImageTexelPointer = 60, Load = 61,
                          Store = 62, CopyMemory = 63, CopyMemorySized = 64, AccessChain = 65,
                          InBoundsAccessChain = 66, PtrAccessChain = 67, ArrayLength = 68,
                          InBoundsPtrAccessChain = 70;
inline constexpr uint32_t Decorate = 71, MemberDecorate = 72, DecorationGroup = 73,
                          GroupDecorate = 74, GroupMemberDecorate = 75;
inline constexpr uint32_t VectorShuffle = 79, CompositeExtract = 81, CompositeInsert = 82,
                          CopyObject = 83, SampledImage = 86, ImageWrite = 99, Image = 100,
                          ImageQueryFormat = 101, ImageQueryOrder = 102, ImageQuerySizeLod = 103,
                          ImageQuerySize = 104, ImageQueryLod = 105, ImageQueryLevels = 106,
                          ImageQuerySamples = 107;
inline constexpr uint32_t CompositeConstruct = 80, CopyLogical = 400;
inline constexpr uint32_t UConvert = 113, SConvert = 114, ConvertPtrToU = 117, ConvertUToPtr = 120,
                          Bitcast = 124, SNegate = 126, IAdd = 128, ISub = 130, IMul = 132,
                          UDiv = 134, SDiv = 135, UMod = 137, SRem = 138, SMod = 139;
inline constexpr uint32_t LogicalEqual = 164, LogicalNotEqual = 165, LogicalOr = 166,
                          LogicalAnd = 167, LogicalNot = 168, Select = 169, IEqual = 170,
                          INotEqual = 171, UGreaterThan = 172, SGreaterThan = 173,
                          UGreaterThanEqual = 174, SGreaterThanEqual = 175, ULessThan = 176,
                          SLessThan = 177, ULessThanEqual = 178, SLessThanEqual = 179;
inline constexpr uint32_t ShiftRightLogical = 194, ShiftRightArithmetic = 195,
                          ShiftLeftLogical = 196, BitwiseOr = 197, BitwiseXor = 198,
                          BitwiseAnd = 199, Not = 200;
inline constexpr uint32_t AtomicLoad = 227, AtomicStore = 228, AtomicExchange = 229,
                          AtomicCompareExchange = 230, AtomicCompareExchangeWeak = 231,
                          AtomicXor = 242, AtomicFlagTestAndSet = 318, AtomicFlagClear = 319,
                          AtomicFMinEXT = 5614, AtomicFMaxEXT = 5615, AtomicFAddEXT = 6035;
inline constexpr uint32_t Phi = 245, LoopMerge = 246, SelectionMerge = 247, BranchConditional = 250,
                          Switch = 251, ReturnValue = 254, NoLine = 317, ExecutionModeId = 331,
                          PtrEqual = 401, PtrNotEqual = 402, PtrDiff = 403;
inline constexpr uint32_t CooperativeMatrixLoadKHR = 4457, CooperativeMatrixStoreKHR = 4458,
                          CooperativeMatrixLoadNV = 5359, CooperativeMatrixStoreNV = 5360;
// SPV_NV_cooperative_matrix2: tensor-addressed loads may name a decode function, which the
// driver calls with a PhysicalStorageBuffer pointer into the loaded buffer.
inline constexpr uint32_t CooperativeMatrixLoadTensorNV = 5367,
                          CooperativeMatrixStoreTensorNV = 5368;
}  // namespace op

namespace decoration {
inline constexpr uint32_t SpecId = 1, Block = 2, BufferBlock = 3, RowMajor = 4, ArrayStride = 6,
                          MatrixStride = 7, BuiltIn = 11, NonWritable = 24, NonReadable = 25,
                          Binding = 33, DescriptorSet = 34, Offset = 35;
}

namespace storage_class {
inline constexpr uint32_t UniformConstant = 0, Input = 1, Uniform = 2, Workgroup = 4, Private = 6,
                          Function = 7, PushConstant = 9, StorageBuffer = 12,
                          PhysicalStorageBuffer = 5349;
}

inline constexpr uint32_t kExecutionModelGLCompute = 5;
inline constexpr uint32_t kExecutionModeLocalSize = 17, kExecutionModeLocalSizeId = 38;
inline constexpr uint32_t kBuiltInWorkgroupSize = 25;
inline constexpr uint32_t kCapabilityPhysicalStorageBufferAddresses = 5347;
inline constexpr uint32_t kAddressingModelPhysicalStorageBuffer64 = 5348;
inline constexpr uint32_t kImageDimBuffer = 5;

}  // namespace graphlens::spirv
