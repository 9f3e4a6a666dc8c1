#include "http/tls_files.hpp"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace vigil::native {

namespace {

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};

// A key that asks for a passphrase gets none: reading it fails instead of prompting.
int no_passphrase(char*, int, int, void*) {
  return 0;
}

std::optional<TlsFilesProblem> open_file(const std::string& path, const char* what,
                                         std::unique_ptr<BIO, BioFree>& bio) {
  errno = 0;
  bio.reset(BIO_new_file(path.c_str(), "r"));
  if (bio) return std::nullopt;
  const int err = errno;
  ERR_clear_error();
  return TlsFilesProblem{TlsFilesProblem::Kind::unreadable,
                         std::string("cannot read the TLS ") + what + " file '" + path +
                             "': " + (err ? std::strerror(err) : "cannot open")};
}

TlsFilesProblem invalid(std::string message) {
  ERR_clear_error();
  return TlsFilesProblem{TlsFilesProblem::Kind::invalid, std::move(message)};
}

}  // namespace

std::optional<TlsFilesProblem> check_tls_files(const std::string& cert_path,
                                               const std::string& key_path) {
  std::unique_ptr<BIO, BioFree> cert_bio;
  std::unique_ptr<BIO, BioFree> key_bio;
  if (auto p = open_file(cert_path, "certificate", cert_bio)) return p;
  if (auto p = open_file(key_path, "key", key_bio)) return p;
  std::unique_ptr<X509, X509Free> cert(
      PEM_read_bio_X509(cert_bio.get(), nullptr, no_passphrase, nullptr));
  if (!cert)
    return invalid("'" + cert_path + "' holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
  std::unique_ptr<EVP_PKEY, KeyFree> key(
      PEM_read_bio_PrivateKey(key_bio.get(), nullptr, no_passphrase, nullptr));
  if (!key)
    return invalid(
        "'" + key_path +
        "' holds no PEM private key (or one protected by a passphrase, which is not supported)");
  if (X509_check_private_key(cert.get(), key.get()) != 1)
    return invalid("the key in '" + key_path + "' does not match the certificate in '" + cert_path +
                   "'");
  ERR_clear_error();
  return std::nullopt;
}

}  // namespace vigil::native
