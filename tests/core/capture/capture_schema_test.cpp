// docs/capture-format.schema.json is what other engines write captures against: its enums of
// op kinds and element types must be exactly the names GraphLens reads (op_kind_name,
// dtype_name), so a new op or dtype cannot be left out of the published format again.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <string>

#include "graphlens/graph/dtype.h"
#include "graphlens/graph/op_kind.h"

namespace graphlens {
namespace {

nlohmann::json load_schema() {
    const std::string path = std::string(GRAPHLENS_DOCS_DIR) + "/capture-format.schema.json";
    std::ifstream in(path);
    if (!in) ADD_FAILURE() << "cannot read " << path;
    return nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/true);
}

/// Every "enum" array found under a key named `key`, anywhere in the schema.
void collect_enums(const nlohmann::json& j, const std::string& key,
                   std::vector<std::set<std::string>>& out) {
    if (j.is_object()) {
        for (const auto& [k, v] : j.items()) {
            if (k == key && v.is_object() && v.contains("enum")) {
                std::set<std::string> names;
                for (const auto& e : v["enum"]) names.insert(e.get<std::string>());
                out.push_back(std::move(names));
            }
            collect_enums(v, key, out);
        }
    } else if (j.is_array()) {
        for (const auto& v : j) collect_enums(v, key, out);
    }
}

TEST(CaptureSchema, OpEnumsListEveryOpKind) {
    std::set<std::string> known;
    for (size_t k = 0; k < kOpKindCount; ++k)
        known.insert(std::string(op_kind_name(static_cast<OpKind>(k))));
    std::vector<std::set<std::string>> enums;
    collect_enums(load_schema(), "op", enums);
    ASSERT_FALSE(enums.empty());
    for (const auto& e : enums) EXPECT_EQ(e, known);
}

TEST(CaptureSchema, DtypeEnumsListEveryDtype) {
    std::set<std::string> known;
    for (size_t t = 0; t < kDTypeCount; ++t)
        known.insert(std::string(dtype_name(static_cast<DType>(t))));
    EXPECT_TRUE(known.count("q8x"));
    std::vector<std::set<std::string>> enums;
    collect_enums(load_schema(), "dtype", enums);
    ASSERT_FALSE(enums.empty());
    for (const auto& e : enums) EXPECT_EQ(e, known);
}

}  // namespace
}  // namespace graphlens
