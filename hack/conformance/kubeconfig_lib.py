"""The server, bearer token and TLS context of a token kubeconfig (as run-fresh.sh writes them), for the helper scripts here."""
import base64, re, ssl, tempfile


def load(path):
    """Returns (server URL, token, ssl.SSLContext trusting the kubeconfig's CA)."""
    text = open(path).read()
    server = re.search(r"server:\s*(\S+)", text).group(1)
    token = re.search(r"token:\s*(\S+)", text).group(1)
    with tempfile.NamedTemporaryFile("wb", suffix=".crt", delete=False) as ca:
        ca.write(base64.b64decode(re.search(r"certificate-authority-data:\s*(\S+)", text).group(1)))
    return server, token, ssl.create_default_context(cafile=ca.name)
