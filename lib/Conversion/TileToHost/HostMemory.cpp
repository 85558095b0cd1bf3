//===- HostMemory.cpp - Data movement on the host ---------------*- C++ -*-===//
//
// Copies between views, shared buffers and register tiles. Views are read
// with padding and written with masks at their edges; int4 views hold two
// codes per byte, low nibble first.
//
//===----------------------------------------------------------------------===//

#include "HostLowering.h"

using namespace mlir;
using namespace tessera;

Value HostLowering::storedConstant(Attribute value) {
  // fp8 is stored as its bits.
  if (auto real = dyn_cast<FloatAttr>(value);
      real && isa<Float8E4M3FNType>(real.getType()))
    value = builder.getIntegerAttr(builder.getI8Type(),
                                   real.getValue().bitcastToAPInt());
  return arith::ConstantOp::create(builder, loc, cast<TypedAttr>(value));
}

/// The padding of a buffer with element type `element` (int4 codes are
/// stored as i8 on the host).
Value HostLowering::padValue(Type element, Attribute pad) {
  if (auto integer = dyn_cast_if_present<IntegerAttr>(pad))
    return arith::ConstantOp::create(
        builder, loc,
        builder.getIntegerAttr(element, integer.getValue().getSExtValue()));
  if (pad)
    return storedConstant(pad);
  return arith::ConstantOp::create(builder, loc, builder.getZeroAttr(element));
}

Value HostLowering::loadViewElement(Value view, Type viewElement,
                                    ValueRange indices) {
  if (!viewElement.isInteger(4))
    return memref::LoadOp::create(builder, loc, view, indices);
  SmallVector<Value> byteIndex(indices);
  Value last = indices.back();
  byteIndex.back() = arith::DivUIOp::create(builder, loc, last, index(2));
  Value byte = memref::LoadOp::create(builder, loc, view, byteIndex);
  Value odd = arith::RemUIOp::create(builder, loc, last, index(2));
  Value shift = arith::MulIOp::create(builder, loc, odd, index(4));
  Value shift8 =
      arith::IndexCastOp::create(builder, loc, builder.getI8Type(), shift);
  // Move the nibble to the top of the byte, then shift it down with its
  // sign: (byte << (4 - shift)) >>s 4.
  Value four = arith::ConstantIntOp::create(builder, loc, 4, 8);
  Value up = arith::ShLIOp::create(
      builder, loc, byte, arith::SubIOp::create(builder, loc, four, shift8));
  return arith::ShRSIOp::create(builder, loc, up, four);
}

void HostLowering::storeViewElement(Value view, Type, ValueRange indices,
                                    Value value) {
  memref::StoreOp::create(builder, loc, value, view, indices);
}

Value HostLowering::sharedTile(Value shared, Value slot) {
  Value memref = buffers.lookup(shared);
  if (!slot)
    return memref;
  auto type = cast<MemRefType>(memref.getType());
  int64_t rank = type.getRank();
  SmallVector<OpFoldResult> offsets(rank, builder.getIndexAttr(0));
  offsets[0] = scalar(slot);
  SmallVector<OpFoldResult> sizes, strides(rank, builder.getIndexAttr(1));
  sizes.push_back(builder.getIndexAttr(1));
  for (int64_t d = 1; d < rank; ++d)
    sizes.push_back(builder.getIndexAttr(type.getDimSize(d)));
  auto resultType = memref::SubViewOp::inferRankReducedResultType(
      type.getShape().drop_front(), type, offsets, sizes, strides);
  return memref::SubViewOp::create(builder, loc, cast<MemRefType>(resultType),
                                   memref, offsets, sizes, strides);
}

/// The tile covers the innermost view dimensions; leading offsets pick the
/// outer coordinates. Only the in-bounds part moves: the tile is padded
/// first on loads, and stores skip what lies outside.
void HostLowering::viewTransfer(Value view, Type viewElement,
                                ValueRange offsets, Value tileBuffer,
                                Attribute pad, bool store) {
  auto tileType = cast<MemRefType>(tileBuffer.getType());
  unsigned rank = offsets.size(), tileRank = tileType.getRank();
  if (!store)
    fill(tileBuffer, padValue(tileType.getElementType(), pad));

  Value inside = arith::ConstantIntOp::create(builder, loc, 1, 1);
  SmallVector<Value> extents;
  for (unsigned j = 0; j < rank; ++j) {
    Value offset = scalar(offsets[j]);
    Value dim = memref::DimOp::create(builder, loc, view, j);
    if (j + tileRank < rank) {
      Value ok = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult,
                                       offset, dim);
      inside = arith::AndIOp::create(builder, loc, inside, ok);
      continue;
    }
    // extent = clamp(dim - offset, 0, tile size)
    int64_t size = tileType.getDimSize(j + tileRank - rank);
    Value remaining = arith::SubIOp::create(builder, loc, dim, offset);
    Value clamped =
        arith::MinSIOp::create(builder, loc, remaining, index(size));
    extents.push_back(arith::MaxSIOp::create(builder, loc, clamped, index(0)));
  }
  auto ifOp = scf::IfOp::create(builder, loc, inside, /*withElse=*/false);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(ifOp.thenBlock());
  loopNest(extents, [&](ValueRange ivs) {
    SmallVector<Value> viewIndex;
    for (unsigned j = 0; j < rank; ++j) {
      Value offset = scalar(offsets[j]);
      viewIndex.push_back(j + tileRank < rank
                              ? offset
                              : arith::AddIOp::create(builder, loc, offset,
                                                      ivs[j + tileRank - rank])
                                    .getResult());
    }
    if (store) {
      Value value = memref::LoadOp::create(builder, loc, tileBuffer, ivs);
      storeViewElement(view, viewElement, viewIndex, value);
    } else {
      Value value = loadViewElement(view, viewElement, viewIndex);
      memref::StoreOp::create(builder, loc, value, tileBuffer, ivs);
    }
  });
}

/// Element `ivs` of a tile taken at `offsets` from `view`: its index in the
/// view (appended to `viewIndex`) and whether it lies inside the view. With
/// `rows`, the tile's first dimension reads rows[ivs[0]] instead of ivs[0];
/// negative ids wrap to huge unsigned values and so fall outside.
Value HostLowering::viewElement(Value view, ValueRange offsets, ValueRange ivs,
                                Value rows, SmallVectorImpl<Value> &viewIndex) {
  unsigned rank = offsets.size(), first = rank - ivs.size();
  Value inside = arith::ConstantIntOp::create(builder, loc, 1, 1);
  for (unsigned j = 0; j < rank; ++j) {
    Value at = scalar(offsets[j]);
    if (j >= first) {
      Value step = ivs[j - first];
      if (rows && j == first)
        step = arith::IndexCastOp::create(
            builder, loc, builder.getIndexType(),
            memref::LoadOp::create(builder, loc, rows, ivs[0]));
      at = arith::AddIOp::create(builder, loc, at, step);
    }
    Value dim = memref::DimOp::create(builder, loc, view, j);
    inside = arith::AndIOp::create(
        builder, loc, inside,
        arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ult, at,
                              dim));
    viewIndex.push_back(at);
  }
  return inside;
}

/// Element-wise loops over `tileType`'s shape whose body runs only for the
/// elements `viewElement` finds inside the view.
void HostLowering::forEachElementInView(
    MemRefType tileType, Value view, ValueRange offsets, Value rows,
    function_ref<void(ValueRange ivs, ValueRange viewIndex)> body) {
  SmallVector<Value> sizes;
  for (int64_t size : tileType.getShape())
    sizes.push_back(index(size));
  loopNest(sizes, [&](ValueRange ivs) {
    SmallVector<Value> viewIndex;
    Value inside = viewElement(view, offsets, ivs, rows, viewIndex);
    auto ifOp = scf::IfOp::create(builder, loc, inside, false);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(ifOp.thenBlock());
    body(ivs, viewIndex);
  });
}

void HostLowering::gatherRows(Value source, ValueRange offsets, Value rows,
                              Value out, Attribute pad) {
  Value view = scalar(source);
  Type element = viewElements.lookup(source);
  auto outType = cast<MemRefType>(out.getType());
  fill(out, padValue(outType.getElementType(), pad));
  forEachElementInView(outType, view, offsets, buffer(rows),
                       [&](ValueRange ivs, ValueRange viewIndex) {
                         Value value =
                             loadViewElement(view, element, viewIndex);
                         memref::StoreOp::create(builder, loc, value, out, ivs);
                       });
}

LogicalResult HostLowering::lowerGather(tile::GatherOp op) {
  gatherRows(op.getSource(), op.getOffsets(), op.getRows(),
             buffer(op.getResult()), op.getPadAttr());
  return success();
}

LogicalResult HostLowering::lowerAtomicAdd(tile::AtomicAddOp op) {
  Value view = scalar(op.getDest());
  Value value = buffer(op.getValue());
  auto valueType = cast<MemRefType>(value.getType());
  Value rows = op.getRows() ? buffer(op.getRows()) : Value();
  auto kind = isa<FloatType>(valueType.getElementType())
                  ? arith::AtomicRMWKind::addf
                  : arith::AtomicRMWKind::addi;
  forEachElementInView(valueType, view, op.getOffsets(), rows,
                       [&](ValueRange ivs, ValueRange viewIndex) {
                         Value element =
                             memref::LoadOp::create(builder, loc, value, ivs);
                         memref::AtomicRMWOp::create(builder, loc, kind,
                                                     element, view, viewIndex);
                       });
  return success();
}

/// result[.., i * P + p, ..] = input[.., i, .., order[p]], element by element
/// (the codes are already one per i8).
LogicalResult HostLowering::lowerUnpack(tile::UnpackOp op) {
  Value input = buffer(op.getInput()), out = buffer(op.getResult());
  int64_t dim = op.getDim();
  ArrayRef<int64_t> order = op.getOrder();
  SmallVector<Value> sizes;
  for (int64_t size : op.getType().getShape())
    sizes.push_back(index(size));
  loopNest(sizes, [&](ValueRange ivs) {
    Value units = index(order.size());
    Value p = arith::RemUIOp::create(builder, loc, ivs[dim], units);
    Value position = index(order.back());
    for (int64_t q = order.size() - 1; q-- > 0;)
      position = arith::SelectOp::create(
          builder, loc,
          arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::eq, p,
                                index(q)),
          index(order[q]), position);
    SmallVector<Value> from(ivs);
    from[dim] = arith::DivUIOp::create(builder, loc, ivs[dim], units);
    from.push_back(position);
    memref::StoreOp::create(builder, loc,
                            memref::LoadOp::create(builder, loc, input, from),
                            out, ivs);
  });
  return success();
}
