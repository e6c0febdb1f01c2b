// Trust authentication admits loopback peers only: which peer addresses count as loopback.
#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "floe/server/connection.h"

namespace floe::server {
namespace {

sockaddr_storage Peer(const std::string& text) {
  sockaddr_storage peer{};
  if (text.find(':') == std::string::npos) {
    auto& v4 = reinterpret_cast<sockaddr_in&>(peer);
    v4.sin_family = AF_INET;
    EXPECT_EQ(inet_pton(AF_INET, text.c_str(), &v4.sin_addr), 1) << text;
  } else {
    auto& v6 = reinterpret_cast<sockaddr_in6&>(peer);
    v6.sin6_family = AF_INET6;
    EXPECT_EQ(inet_pton(AF_INET6, text.c_str(), &v6.sin6_addr), 1) << text;
  }
  return peer;
}

TEST(Loopback, LoopbackPeers) {
  for (const char* host : {"127.0.0.1", "127.255.0.9", "::1", "::ffff:127.0.0.1"}) {
    EXPECT_TRUE(IsLoopback(Peer(host))) << host;
  }
}

TEST(Loopback, OtherPeers) {
  for (const char* host : {"192.0.2.2", "10.0.0.1", "128.0.0.1", "0.0.0.0", "fd00::2",
                           "::", "::ffff:192.0.2.2", "::2"}) {
    EXPECT_FALSE(IsLoopback(Peer(host))) << host;
  }
}

TEST(Loopback, PeerHostNamesTheAddress) {
  EXPECT_EQ(PeerHost(Peer("192.0.2.2")), "192.0.2.2");
  EXPECT_EQ(PeerHost(Peer("fd00::2")), "fd00::2");
}

}  // namespace
}  // namespace floe::server
