#pragma once

#include <vector>

#include <vigil/wire/messages.hpp>
#include "hex.hpp"

// The hand-derived golden vectors of the wire codec, shared by tests/wire/codec_test.cpp and the
// fuzzers' seed corpus generator (tests/fuzz/make_corpus.cpp).
namespace vigil::wire::testing {

// Every golden vector below was written out by hand from the MessagePack spec and memberlist's
// field order, not produced by this encoder.
inline const Bytes ping_bytes = hex("00 82 a5 'SeqNo' 01 a4 'Node' a1 'b'");
inline const Ping ping{
    .seq_no = 1, .node = "b", .source_addr = {}, .source_port = 0, .source_node = ""};
inline const Bytes nack_bytes = hex("0b 81 a5 'SeqNo' cc c8");
inline const Nack nack{.seq_no = 200};

struct Golden {
  const char* name;
  Message message;
  Bytes bytes;
};

inline std::vector<Golden> goldens() {
  return {
      {"ping", ping, ping_bytes},
      {"ping with source",
       Ping{.seq_no = 1,
            .node = "b",
            .source_addr = {192, 168, 0, 1},
            .source_port = 7946,
            .source_node = "a"},
       hex("00 85 a5 'SeqNo' 01 a4 'Node' a1 'b' aa 'SourceAddr' a4 c0 a8 00 01"
           " aa 'SourcePort' cd 1f 0a aa 'SourceNode' a1 'a'")},
      {"ping with only a source port",
       Ping{.seq_no = 0, .node = "", .source_addr = {}, .source_port = 1, .source_node = ""},
       hex("00 83 a5 'SeqNo' 00 a4 'Node' a0 aa 'SourcePort' 01")},
      {"indirect ping",
       IndirectPing{.seq_no = 300,
                    .target = {10, 0, 0, 2},
                    .port = 7946,
                    .node = "c",
                    .nack = true,
                    .source_addr = {},
                    .source_port = 0,
                    .source_node = ""},
       hex("01 85 a5 'SeqNo' cd 01 2c a6 'Target' a4 0a 00 00 02 a4 'Port' cd 1f 0a a4 'Node' a1 "
           "'c'"
           " a4 'Nack' c3")},
      {"indirect ping with source",
       IndirectPing{.seq_no = 2,
                    .target = {},
                    .port = 0,
                    .node = "",
                    .nack = false,
                    .source_addr = {1, 2, 3, 4},
                    .source_port = 5,
                    .source_node = "s"},
       hex("01 88 a5 'SeqNo' 02 a6 'Target' c0 a4 'Port' 00 a4 'Node' a0 a4 'Nack' c2"
           " aa 'SourceAddr' a4 01 02 03 04 aa 'SourcePort' 05 aa 'SourceNode' a1 's'")},
      {"ack with empty payload", Ack{.seq_no = 7, .payload = {}},
       hex("02 82 a5 'SeqNo' 07 a7 'Payload' c0")},
      {"ack with payload", Ack{.seq_no = 65536, .payload = {0xff}},
       hex("02 82 a5 'SeqNo' ce 00 01 00 00 a7 'Payload' a1 ff")},
      {"suspect", Suspect{.incarnation = 3, .node = "a", .from = "bb"},
       hex("03 83 ab 'Incarnation' 03 a4 'Node' a1 'a' a4 'From' a2 'bb'")},
      {"alive",
       Alive{.incarnation = 1,
             .node = "n1",
             .addr = {127, 0, 0, 1},
             .port = 7946,
             .meta = {},
             .vsn = {1, 5, 2, 2, 5, 5}},
       hex("04 86 ab 'Incarnation' 01 a4 'Node' a2 'n1' a4 'Addr' a4 7f 00 00 01 a4 'Port' cd 1f 0a"
           " a4 'Meta' c0 a3 'Vsn' a6 01 05 02 02 05 05")},
      {"dead", Dead{.incarnation = 70000, .node = "x", .from = "x"},
       hex("05 83 ab 'Incarnation' ce 00 01 11 70 a4 'Node' a1 'x' a4 'From' a1 'x'")},
      {"nack", nack, nack_bytes},
      {"error response", ErrorResponse{.error = "boom"}, hex("0d 81 a5 'Error' a4 'boom'")},
      {"user", User{.payload = {'h', 'i'}}, hex("08 'hi'")},
      {"empty user", User{}, hex("08")},
  };
}

// One push-pull exchange: a suspect member and two bytes of user state.
inline PushPull golden_push_pull() {
  return PushPull{
      .join = false,
      .nodes = {PushNodeState{.name = "a",
                              .addr = {127, 0, 0, 1},
                              .port = 7946,
                              .meta = {},
                              .incarnation = 1,
                              .state = NodeState::suspect,
                              .vsn = {1, 5, 2, 2, 5, 5}}},
      .user_state = {'u', 's'},
  };
}

inline Bytes golden_push_pull_bytes() {
  return hex(
      "06 83 a5 'Nodes' 01 ac 'UserStateLen' 02 a4 'Join' c2"
      " 87 a4 'Name' a1 'a' a4 'Addr' a4 7f 00 00 01 a4 'Port' cd 1f 0a a4 'Meta' c0"
      " ab 'Incarnation' 01 a5 'State' 01 a3 'Vsn' a6 01 05 02 02 05 05 'us'");
}

}  // namespace vigil::wire::testing
