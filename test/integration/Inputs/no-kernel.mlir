func.func @not_a_kernel() {
  return
}
