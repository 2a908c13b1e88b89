/* test_short_names.c: the short forms of kernel and op names
 * (report/trace_names.c) on names real traces carry: different kernels
 * stay different, what is not a C++ signature stays as written. */
#include "check.h"
#include "common/strbuf.h"
#include "report/trace_sql.h"

#include <string.h>

static void expect(const char *name, const char *want)
{
    pdb_buf b = PDB_BUF_INIT;
    pdb_short_name(name, &b);
    CHECK_STR(pdb_buf_str(&b), want);
    pdb_buf_free(&b);
}

static void expect_shape(const char *name, const char *want)
{
    pdb_buf b = PDB_BUF_INIT;
    pdb_name_shape(name, &b);
    CHECK_STR(pdb_buf_str(&b), want);
    pdb_buf_free(&b);
}

/* name_shape(): what a rename by template arguments or addresses keeps. */
static void shapes(void)
{
    expect_shape("void split_embedding_backward_codegen<float, float, 2ul>(float*, long)",
                 "void split_embedding_backward_codegen<>(float*, long)");
    expect_shape("void k<a<b, c<d>>, 5>(int)", "void k<>(int)"); /* nested: dropped */
    expect_shape("void k<1>(int) 0x7f3a9c00 at 0XDEAD", "void k<>(int) 0x at 0x");
    expect_shape("Memcpy DtoH (Device -> Pageable)", "Memcpy DtoH (Device -> Pageable)");
    expect_shape("0x", "0x");   /* no hex digit: as written */
    expect_shape("a < b", "a <>"); /* unbalanced: the rest is one argument list */
    expect_shape("", "");
}

int main(void)
{
    shapes();
    /* Two elementwise kernels a middle cut made look alike. */
    expect("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<c10::Half>, "
           "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<c10::Half>, "
           "at::detail::Array<char*, 1>)",
           "vectorized_elementwise_kernel<4, FillFunctor<…>, Array<…>>");
    expect("void at::native::vectorized_elementwise_kernel<4, at::native::compare_scalar_kernel<"
           "c10::Half>(at::TensorIteratorBase&, at::native::(anonymous namespace)::OpType, "
           "c10::Half)::{lambda(c10::Half)#1}, at::detail::Array<char*, 2> >(int, "
           "at::native::compare_scalar_kernel<c10::Half>(at::TensorIteratorBase&, "
           "at::native::(anonymous namespace)::OpType, c10::Half)::{lambda(c10::Half)#1}, "
           "at::detail::Array<char*, 2>)",
           "vectorized_elementwise_kernel<4, compare_scalar_kernel<…>(…)::{lambda(…)#1}, "
           "Array<…>>");
    expect("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<c10::Half, "
           "at::native::func_wrapper_t<c10::Half, at::native::sum_functor<c10::Half, float, "
           "c10::Half>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, "
           "c10::Half, 4> >(at::native::ReduceOp<c10::Half, at::native::func_wrapper_t<c10::Half, "
           "at::native::sum_functor<c10::Half, float, c10::Half>::operator()(at::TensorIterator&)"
           "::{lambda(float, float)#1}>, unsigned int, c10::Half, 4>)",
           "reduce_kernel<512, 1, ReduceOp<…>>");
    expect("at::cuda::(anonymous namespace)::spin_kernel(long)", "spin_kernel");
    expect("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>("
           "cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4::Params)",
           "Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>");
    expect("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
           "ncclDevKernel_AllReduce_Sum_f32_RING_LL");
    /* Not C++ signatures: as written. */
    expect("Memcpy DtoH (Device -> Pageable)", "Memcpy DtoH (Device -> Pageable)");
    expect("aten::mm", "aten::mm");
    expect("autograd::engine::evaluate_function: MmBackward0",
           "autograd::engine::evaluate_function: MmBackward0");
    expect("ampere_sgemm_128x64_nn", "ampere_sgemm_128x64_nn");
    expect("triton_poi_fused_add_0", "triton_poi_fused_add_0");
    expect("a < b", "a < b"); /* unbalanced: left alone */
    expect("", "");
    return check_report();
}
