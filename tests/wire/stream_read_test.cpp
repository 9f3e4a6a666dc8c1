#include <doctest/doctest.h>

#include <span>

#include <vigil/wire/codec.hpp>
#include <vigil/wire/lzw.hpp>
#include <vigil/wire/msgpack.hpp>
#include <vigil/wire/stream_frame.hpp>

using namespace vigil::wire;

namespace {

bool decodes(std::span<const std::uint8_t> m) {
  return decode_push_pull_view(m).ok();
}

StreamRead read(const Bytes& received, std::size_t budget = max_stream_expansion) {
  return read_stream(received, "", nullptr, decodes, StreamPart::request, budget);
}

// A full-state exchange of no members carrying `user_state` bytes of user state.
Bytes push_pull_of(std::size_t user_state) {
  Bytes out;
  encode_push_pull(PushPull{false, {}, Bytes(user_state, 0x61)}, out);
  return out;
}

}  // namespace

TEST_CASE(
    "stream: a compressed message past the expansion budget is refused as soon as it is whole") {
  // 8 MiB of full state compresses to a few KiB: the budget, not the bytes received, stops it.
  const Bytes bomb = make_compressed(push_pull_of(8 << 20));
  CHECK(bomb.size() < 16 * 1024);
  const StreamRead r = read(bomb);
  CHECK(r.status == StreamRead::Status::refused);
  CHECK(r.refusal == StreamRead::Refusal::too_large);
  // Not all of it yet: it may still be anything, so it is only incomplete.
  for (std::size_t n : {std::size_t{1}, std::size_t{10}, bomb.size() / 2, bomb.size() - 1}) {
    CAPTURE(n);
    CHECK(read(Bytes(bomb.begin(), bomb.begin() + static_cast<std::ptrdiff_t>(n))).status ==
          StreamRead::Status::incomplete);
  }
}

TEST_CASE("stream: the expansion budget matches the agent's 4 MiB a stream, not 1 MiB a message") {
  // A state of 2 MiB is within what a stream may carry plainly, so compressed it is read too.
  const Bytes two = push_pull_of(2 << 20);
  const StreamRead r = read(make_compressed(two));
  REQUIRE(r.status == StreamRead::Status::ready);
  CHECK(r.compressed);
  CHECK(r.message == two);
  // Exactly at the budget, and one byte past it.
  const std::size_t header = push_pull_of(1 << 20).size() - (1 << 20);  // its length as a uint32
  const Bytes at = push_pull_of(max_stream_expansion - header);
  REQUIRE(at.size() == max_stream_expansion);
  CHECK(read(make_compressed(at)).status == StreamRead::Status::ready);
  CHECK(read(make_compressed(at), max_stream_expansion - 1).refusal ==
        StreamRead::Refusal::too_large);
}

TEST_CASE("stream: a whole compressed message that is corrupt or holds no message is refused") {
  // A complete compress map around LZW cut before its end code: no more bytes can mend it.
  Bytes lzw = lzw_compress(push_pull_of(100));
  lzw.resize(lzw.size() - 2);
  Bytes corrupt{static_cast<std::uint8_t>(MessageType::compress)};
  msgpack::Writer w(corrupt);
  w.write_map_header(2);
  w.write_string("Algo");
  w.write_uint(0);
  w.write_string("Buf");
  w.write_bytes(lzw);
  const StreamRead r = read(corrupt);
  CHECK(r.status == StreamRead::Status::refused);
  CHECK(r.refusal == StreamRead::Refusal::malformed);
  // Whole, expanding to the start of a full state only: it will never be more.
  const Bytes half = push_pull_of(100);
  const StreamRead partial = read(make_compressed(Bytes(half.begin(), half.begin() + 20)));
  CHECK(partial.status == StreamRead::Status::refused);
  CHECK(partial.refusal == StreamRead::Refusal::malformed);
}
