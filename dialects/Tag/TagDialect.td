//===- TagDialect.td - Data-flow tag dialect ---------------*- tablegen -*-===//

#ifndef TESSERA_TAG_DIALECT
#define TESSERA_TAG_DIALECT

include "mlir/IR/OpBase.td"

def Tag_Dialect : Dialect {
  let name = "tag";
  let cppNamespace = "::tessera::tag";
  let summary = "Data-flow tags and the invariants stated over them";
  let description = [{
    A *tag* is a tuple of symbolic integers attached to every element of a
    view, shared buffer or register tile. `tag.bind` attaches tags at a
    source (usually each element carries its own coordinates); the checker
    (`tessera-opt --tag-check`) propagates them through copies, loads, rings,
    loops and matrix multiplies, and proves the assertions written with
    `tag.assert_eq`, `tag.assert_contract` and `tag.assert` with the Z3 SMT
    solver, under the facts stated with `tag.assume`. A failed proof is a
    compile error with a concrete counterexample.

    Tag ops describe the program; they do not change what it computes, and
    the lowering passes erase them.
  }];
}

class Tag_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tag_Dialect, mnemonic, traits>;

#endif // TESSERA_TAG_DIALECT
