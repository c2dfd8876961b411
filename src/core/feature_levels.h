/*
 * feature_levels.h — DirectML's feature levels, in order, and the highest
 * this runtime implements: one list for the core (validation, the
 * FEATURE_LEVELS query) and the tools (dmlinfo asks for every level).
 */
#ifndef DML_CORE_FEATURE_LEVELS_H
#define DML_CORE_FEATURE_LEVELS_H

#include <dml/dml.h>
#include <stdbool.h>

static const DML_FEATURE_LEVEL dml_feature_levels[] = {
    DML_FEATURE_LEVEL_1_0, DML_FEATURE_LEVEL_2_0, DML_FEATURE_LEVEL_2_1, DML_FEATURE_LEVEL_3_0,
    DML_FEATURE_LEVEL_3_1, DML_FEATURE_LEVEL_4_0, DML_FEATURE_LEVEL_4_1, DML_FEATURE_LEVEL_5_0,
    DML_FEATURE_LEVEL_5_1, DML_FEATURE_LEVEL_5_2, DML_FEATURE_LEVEL_6_0, DML_FEATURE_LEVEL_6_1,
    DML_FEATURE_LEVEL_6_2, DML_FEATURE_LEVEL_6_3, DML_FEATURE_LEVEL_6_4,
};

#define DML_FEATURE_LEVEL_COUNT (sizeof dml_feature_levels / sizeof dml_feature_levels[0])

/* The highest level this runtime implements, and its name for messages. */
#define DML_MAX_FEATURE_LEVEL DML_FEATURE_LEVEL_5_0
#define DML_MAX_FEATURE_LEVEL_NAME "5_0"

/* Whether level is one of DirectML's DML_FEATURE_LEVEL values. */
static inline bool dml_is_feature_level(uint32_t level)
{
    for (size_t i = 0; i < DML_FEATURE_LEVEL_COUNT; ++i)
        if ((uint32_t)dml_feature_levels[i] == level)
            return true;
    return false;
}

#endif /* DML_CORE_FEATURE_LEVELS_H */
