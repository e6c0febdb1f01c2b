#include "floe/server/scram.h"

#include "floe_test.h"

namespace floe::server {
namespace {

// RFC 7677 section 3: user "user", password "pencil".
constexpr char kSalt[] = "W22ZaJ0SNY7soEsUEjb6gQ==";
constexpr char kClientFirst[] = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
constexpr char kServerNonce[] = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
constexpr char kServerFirst[] =
    "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
constexpr char kClientFinal[] =
    "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
    "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
constexpr char kServerFinal[] = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";

ScramVerifier PencilVerifier() {
  auto salt = Base64Decode(kSalt);
  EXPECT_TRUE(salt.ok());
  auto verifier = ScramVerifier::FromPassword("pencil", *salt, 4096);
  EXPECT_TRUE(verifier.ok());
  return *verifier;
}

TEST(Scram, Rfc7677Exchange) {
  ScramServer server(PencilVerifier(), kServerNonce);
  ASSERT_OK_AND_ASSIGN(std::string server_first, server.ClientFirst(kClientFirst));
  EXPECT_EQ(server_first, kServerFirst);
  ASSERT_OK_AND_ASSIGN(std::string server_final, server.ClientFinal(kClientFinal));
  EXPECT_EQ(server_final, kServerFinal);
}

TEST(Scram, WrongPasswordFails) {
  auto salt = Base64Decode(kSalt);
  ASSERT_OK_AND_ASSIGN(ScramVerifier other, ScramVerifier::FromPassword("pencils", *salt, 4096));
  ScramServer server(other, kServerNonce);
  ASSERT_OK(server.ClientFirst(kClientFirst).status());
  ASSERT_RAISES_WITH_MESSAGE("authentication failed", server.ClientFinal(kClientFinal).status());
}

TEST(Scram, UnknownUserFailsAtTheEnd) {
  ScramServer server(std::nullopt, kServerNonce);
  ASSERT_OK_AND_ASSIGN(std::string server_first, server.ClientFirst(kClientFirst));
  EXPECT_EQ(server_first.substr(0, 2 + 20 + 30),
            std::string("r=rOprNGfwEbeRWgbNEkqO") + kServerNonce);
  ASSERT_RAISES_WITH_MESSAGE("authentication failed", server.ClientFinal(kClientFinal).status());
}

TEST(Scram, TamperedNonceAndChannelBindingAreRefused) {
  ScramServer server(PencilVerifier(), kServerNonce);
  ASSERT_OK(server.ClientFirst(kClientFirst).status());
  ASSERT_RAISES_WITH_MESSAGE("nonce", server.ClientFinal("c=biws,r=other,p=AAAA").status());
  ScramServer binding(PencilVerifier(), kServerNonce);
  ASSERT_RAISES_WITH_MESSAGE("channel binding",
                             binding.ClientFirst("p=tls-server-end-point,,n=,r=x").status());
}

TEST(Scram, VerifierRoundTripsAndHoldsNoPassword) {
  ScramVerifier v = PencilVerifier();
  std::string text = v.ToString();
  EXPECT_EQ(text.rfind("SCRAM-SHA-256$4096:W22ZaJ0SNY7soEsUEjb6gQ==$", 0), 0u) << text;
  EXPECT_EQ(text.find("pencil"), std::string::npos);
  ASSERT_OK_AND_ASSIGN(ScramVerifier back, ScramVerifier::Parse(text));
  EXPECT_EQ(back.stored_key, v.stored_key);
  EXPECT_EQ(back.server_key, v.server_key);
  EXPECT_EQ(back.salt, v.salt);
  ASSERT_RAISES_WITH_MESSAGE("not a SCRAM-SHA-256 verifier",
                             ScramVerifier::Parse("md5abc").status());
}

TEST(Scram, Base64) {
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("foo"), "Zm9v");
  EXPECT_EQ(*Base64Decode("Zm8="), "fo");
  EXPECT_FALSE(Base64Decode("Zm8").ok());
  EXPECT_FALSE(Base64Decode("Z!8=").ok());
}

}  // namespace
}  // namespace floe::server
