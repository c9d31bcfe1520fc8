// Host IEEE fast path (host_ieee.hpp): renames the software functions it replaces to
// <name>_soft while f32.glsl, f64.glsl and convert.glsl are included; host_ieee_restore.hpp
// undoes it. Shared by numerics.hpp and the generated units of compiled mode
// (compiled_glsl.cpp), which embed this text. No include guard: it is meant to be repeated.
// Every public name that host_ieee.hpp defines (the list must match it: a name missing here is
// a redefinition error, a name missing there leaves numeric_dispatch.glsl without it).
#define f32_add f32_add_soft
#define f32_sub f32_sub_soft
#define f32_mul f32_mul_soft
#define f32_div f32_div_soft
#define f32_sqrt f32_sqrt_soft
#define f32_min f32_min_soft
#define f32_max f32_max_soft
#define f32_eq f32_eq_soft
#define f32_ne f32_ne_soft
#define f32_lt f32_lt_soft
#define f32_gt f32_gt_soft
#define f32_le f32_le_soft
#define f32_ge f32_ge_soft
#define f32_ceil f32_ceil_soft
#define f32_floor f32_floor_soft
#define f32_trunc f32_trunc_soft
#define f32_nearest f32_nearest_soft
#define f64_add f64_add_soft
#define f64_sub f64_sub_soft
#define f64_mul f64_mul_soft
#define f64_div f64_div_soft
#define f64_sqrt f64_sqrt_soft
#define f64_min f64_min_soft
#define f64_max f64_max_soft
#define f64_eq f64_eq_soft
#define f64_ne f64_ne_soft
#define f64_lt f64_lt_soft
#define f64_gt f64_gt_soft
#define f64_le f64_le_soft
#define f64_ge f64_ge_soft
#define f64_ceil f64_ceil_soft
#define f64_floor f64_floor_soft
#define f64_trunc f64_trunc_soft
#define f64_nearest f64_nearest_soft
#define f64_promote_f32 f64_promote_f32_soft
#define f32_demote_f64 f32_demote_f64_soft
#define f32_convert_i32_s f32_convert_i32_s_soft
#define f32_convert_i32_u f32_convert_i32_u_soft
#define f32_convert_i64_s f32_convert_i64_s_soft
#define f32_convert_i64_u f32_convert_i64_u_soft
#define f64_convert_i32_s f64_convert_i32_s_soft
#define f64_convert_i32_u f64_convert_i32_u_soft
#define f64_convert_i64_s f64_convert_i64_s_soft
#define f64_convert_i64_u f64_convert_i64_u_soft
