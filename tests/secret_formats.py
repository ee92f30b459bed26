"""Realistic secret formats, each drawn at random: `(text, secret)` pairs for leak tests.

Every draw is FAKE (random characters in the shape of a real credential); nothing
real-looking is committed. `DEV` is the set the rules were checked against while they were
written; `HELD_OUT` was written without looking at what the scanner does with it and is run
as it is (its results are reported apart, in benchmarks/secret_corpus.py and secrets.md).
"""

from __future__ import annotations

import base64
import json
import random
import string
from collections.abc import Callable

__all__ = ["DEV", "HELD_OUT", "Format", "pieces"]

ALNUM = string.ascii_letters + string.digits
UPPER = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
URL_SAFE = ALNUM + "-._~!$*+"
SYMBOLS = "!#$%^*()-_=+[]{}.?~@:/&;,|"
WORDS = ("correct", "horse", "battery", "staple", "orange", "river", "violet", "anchor",
         "meadow", "copper", "lantern", "thistle", "harbor", "quartz", "willow", "ember")

Format = tuple[str, Callable[[random.Random], tuple[str, str]]]


def rs(rng: random.Random, n: int, alphabet: str = ALNUM) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def pw(rng: random.Random, banned: str = "", lo: int = 10, hi: int = 24) -> str:
    """A password with letters, digits and symbols, none of `banned`."""
    alphabet = "".join(c for c in ALNUM + SYMBOLS if c not in banned)
    while True:
        value = rs(rng, rng.randint(lo, hi), alphabet)
        if any(c.isdigit() for c in value) and any(c.isupper() for c in value):
            return value


def b64(rng: random.Random, nbytes: int) -> str:
    return base64.b64encode(rng.randbytes(nbytes)).decode()


def words(rng: random.Random, k: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(k))


def pem(rng: random.Random, label: str) -> tuple[str, str]:
    body = "\n".join(b64(rng, 48) for _ in range(rng.randint(4, 9)))
    return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----", body


def jwt(rng: random.Random) -> str:
    def part(data: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")
    sig = base64.urlsafe_b64encode(rng.randbytes(32)).decode().rstrip("=")
    return f"{part({'alg': 'HS256', 'typ': 'JWT'})}.{part({'sub': rs(rng, 10)})}.{sig}"


def _f(name: str):
    def wrap(fn: Callable[[random.Random], tuple[str, str]]) -> Format:
        return name, fn
    return wrap


def _url_pw(rng: random.Random) -> str:
    return rs(rng, rng.randint(10, 24), URL_SAFE)


def _dev() -> list[Format]:
    out: list[Format] = []

    def add(name: str, fn: Callable[[random.Random], tuple[str, str]]) -> None:
        out.append((name, fn))

    def url(template: str) -> Callable[[random.Random], tuple[str, str]]:
        def make(rng: random.Random) -> tuple[str, str]:
            secret = _url_pw(rng)
            return template.format(s=secret, u=rs(rng, 6, string.ascii_lowercase)), secret
        return make

    add("postgres-url", url("DATABASE_URL=postgres://{u}:{s}@db1.internal.invalid:5432/app"))
    add("postgresql-psycopg-url",
        url("engine = create_engine('postgresql+psycopg://{u}:{s}@localhost/mydb')"))
    add("mysql-url", url("mysql://root:{s}@127.0.0.1:3306/shop"))
    add("mongodb-srv-url",
        url("MONGO_URI=mongodb+srv://{u}:{s}@cluster0.ab1cd.mongodb.invalid/?retryWrites=true"))
    add("redis-url-no-user", url("cache: redis://:{s}@cache.invalid:6379/0"))
    add("amqp-url", url("broker_url = 'amqp://{u}:{s}@rabbit.invalid:5672//'"))

    def two_words(rng):
        secret = words(rng, rng.randint(2, 4))
        return f'password = "{secret}"', secret
    add("password-two-words", two_words)

    def db_at_quoted(rng):
        head, tail = pw(rng, banned='"@', lo=4, hi=10), pw(rng, banned='"', lo=4, hi=10)
        secret = f"{head}@{tail}"
        return f'DB_PASSWORD="{secret}"', secret
    add("db-password-at-quoted", db_at_quoted)

    def db_at_unquoted(rng):
        secret = f"{pw(rng, banned='@ ', lo=4, hi=10)}@{pw(rng, banned=' ', lo=4, hi=10)}"
        return f"DB_PASSWORD={secret}", secret
    add("db-password-at-unquoted", db_at_unquoted)

    def hex_env(rng):
        secret = rs(rng, 64, HEX)
        return f"WEBHOOK_SIGNING_SECRET={secret}", secret
    add("hex-signing-secret-env", hex_env)

    def hex_prose(rng):
        secret = rs(rng, 64, HEX)
        return f"Use this HMAC signing key: {secret} for the callbacks.", secret
    add("hex-signing-secret-prose", hex_prose)

    def vault(rng):
        secret = "hvs." + rs(rng, rng.randint(24, 95), ALNUM + "_-")
        return f"vault login {secret}", secret
    add("vault-hvs-token", vault)

    def dop(rng):
        secret = "dop_v1_" + rs(rng, 64, HEX)
        return f"The DO key for staging is {secret} (rotate monthly)", secret
    add("digitalocean-pat", dop)

    def basic(rng):
        secret = base64.b64encode(f"{rs(rng, 6)}:{pw(rng, banned=' ')}".encode()).decode()
        return f'curl -H "Authorization: Basic {secret}" https://api.invalid/v1', secret
    add("authorization-basic", basic)

    def bearer(rng):
        secret = rs(rng, rng.randint(24, 48), ALNUM + "._-")
        return f"Authorization: Bearer {secret}", secret
    add("authorization-bearer", bearer)

    def sshpass(rng):
        secret = pw(rng, banned="' ")
        return f"sshpass -p '{secret}' ssh deploy@web1.invalid", secret
    add("sshpass-p", sshpass)

    def mysql_p(rng):
        secret = pw(rng, banned="'\" ")
        return f"mysql -u root -p{secret} production", secret
    add("mysql-p", mysql_p)

    def xml_pw(rng):
        secret = pw(rng, banned="<&>")
        return f"<config>\n  <password>{secret}</password>\n</config>", secret
    add("xml-password-element", xml_pw)

    def json_camel(rng):
        secret = rs(rng, rng.randint(16, 40), ALNUM + "~._-")
        return json.dumps({"clientId": rs(rng, 8), "clientSecret": secret}), secret
    add("json-camel-client-secret", json_camel)

    def glpat_url(rng):
        secret = "glpat-" + rs(rng, 20, ALNUM + "_-")
        return f"git clone https://oauth2:{secret}@gitlab.invalid/grp/repo.git", secret
    add("gitlab-pat-in-url", glpat_url)

    def glpat(rng):
        secret = "glpat-" + rs(rng, rng.randint(20, 26), ALNUM + "_-")
        return f"ci runner uses {secret} for the registry", secret
    add("gitlab-pat", glpat)

    def aws_secret(rng):
        secret = rs(rng, 40, ALNUM + "/+")
        return f"[default]\naws_access_key_id = AKIA{rs(rng, 16, UPPER)}\n" \
               f"aws_secret_access_key = {secret}", secret
    add("aws-secret-unquoted", aws_secret)

    def aiza(rng):
        secret = "AIza" + rs(rng, 35, ALNUM + "_-")
        return f"maps loaded with {secret} in index.html", secret
    add("google-api-key", aiza)

    def gocspx(rng):
        secret = "GOCSPX-" + rs(rng, 28, ALNUM + "_-")
        return json.dumps({"web": {"client_id": "1234.apps.invalid", "client_secret": secret}}), \
            secret
    add("google-oauth-client-secret", gocspx)

    def telegram(rng):
        secret = f"{rs(rng, rng.randint(8, 10), string.digits)}:AA{rs(rng, 33, ALNUM + '_-')}"
        return f"https://api.telegram.org/bot{secret}/sendMessage", secret
    add("telegram-bot-token", telegram)

    def akia(rng):
        secret = "AKIA" + rs(rng, 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
        return f"AWS_ACCESS_KEY_ID {secret}", secret
    add("aws-access-key-id", akia)

    def token(prefix: str, n: int, alphabet: str = ALNUM, suffix: str = "",
              template: str = "found in the deploy config: {s}"):
        def make(rng):
            secret = prefix + rs(rng, n, alphabet) + suffix
            return template.format(s=secret), secret
        return make

    add("github-pat", token("ghp_", 36))
    add("github-fine-grained", token("github_pat_", 82, ALNUM + "_"))
    add("anthropic-key", token("sk-ant-api03-", 93, ALNUM + "_-", "AA"))
    add("openai-project-key", token("sk-proj-", 156, ALNUM + "_-"))
    add("slack-bot-token", lambda rng: (
        f"SLACK: xoxb-{rs(rng, 11, string.digits)}-{rs(rng, 13, string.digits)}-"
        f"{(s := rs(rng, 24))}", s))
    add("slack-webhook", lambda rng: (
        f"https://hooks.slack.com/services/T{rs(rng, 8, UPPER)}/B{rs(rng, 10, UPPER)}/"
        f"{(s := rs(rng, 24))}", s))
    add("stripe-live-key", token("sk_live_", 24))

    def pem_rsa(rng):
        text, body = pem(rng, "RSA PRIVATE KEY")
        return text, body
    add("pem-rsa-private-key", pem_rsa)

    def pem_ssh(rng):
        text, body = pem(rng, "OPENSSH PRIVATE KEY")
        return f"~/.ssh/id_ed25519:\n{text}\n", body
    add("pem-openssh-private-key", pem_ssh)

    def jwt_fmt(rng):
        secret = jwt(rng)
        return f"cookie session={secret}; Path=/", secret
    add("jwt", jwt_fmt)

    add("npmrc-token", token("npm_", 36, template="//registry.npmjs.org/:_authToken={s}"))
    add("pypirc-token", token("pypi-AgEIcHlwaS5vcmc", 70, ALNUM + "-_",
                              template="[pypi]\nusername = __token__\npassword = {s}"))
    add("huggingface-token", token("hf_", 34, string.ascii_letters,
                                   template="export HF_HOME=/data; use {s} to pull"))
    add("sendgrid-key", lambda rng: (
        f"mail via {(s := 'SG.' + rs(rng, 22, ALNUM + '_-') + '.' + rs(rng, 43, ALNUM + '_-'))}",
        s))
    add("twilio-api-key", token("SK", 32, HEX, template="twilio sid {s} configured"))

    def azure(rng):
        secret = b64(rng, 64)
        return (f"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={secret};"
                "EndpointSuffix=core.windows.net"), secret
    add("azure-storage-connection-string", azure)

    def netrc(rng):
        secret = pw(rng, banned=" ")
        return f"machine api.invalid\nlogin bot\npassword {secret}\n", secret
    add("netrc", netrc)

    def pgpass(rng):
        secret = pw(rng, banned=": \\")
        return f"db.invalid:5432:app:app:{secret}", secret
    add("pgpass", pgpass)

    def docker_login(rng):
        secret = pw(rng, banned="'\" ")
        return f"docker login -u ci -p {secret} registry.invalid", secret
    add("docker-login-p", docker_login)

    def redis_cli(rng):
        secret = pw(rng, banned="'\" ")
        return f"redis-cli -h cache.invalid -a {secret} ping", secret
    add("redis-cli-a", redis_cli)

    def cli_flag(rng):
        secret = pw(rng, banned="'\" ")
        return f"./deploy --password={secret} --verbose", secret
    add("cli-password-flag", cli_flag)

    def curl_u(rng):
        secret = pw(rng, banned="'\" :")
        return f"curl -u admin:{secret} https://api.invalid/v1", secret
    add("curl-user", curl_u)

    def yaml_pw(rng):
        secret = pw(rng, banned=" #'\"")
        return f"database:\n  user: app\n  password: {secret}\n", secret
    add("yaml-password", yaml_pw)

    def yaml_block(rng):
        secret = rs(rng, 40)
        return f"api_token: |\n  {secret}\n", secret
    add("yaml-block-token", yaml_block)

    def java_props(rng):
        secret = pw(rng, banned=" ")
        return f"spring.datasource.password={secret}", secret
    add("java-properties", java_props)

    def php(rng):
        secret = pw(rng, banned="'\\")
        return f"$db_pass = '{secret}';", secret
    add("php-variable", php)

    def go(rng):
        secret = rs(rng, 32)
        return f'apiKey := "{secret}"', secret
    add("go-short-assign", go)

    def csharp(rng):
        secret = pw(rng, banned="; ")
        return f"Server=sql.invalid;Database=app;User Id=sa;Password={secret};", secret
    add("sqlserver-connection-string", csharp)

    def xml_attr(rng):
        secret = pw(rng, banned='"<&>')
        return f'<add key="DbPassword" value="{secret}" />', secret
    add("xml-appsettings-attribute", xml_attr)

    def query(rng):
        secret = rs(rng, 32, ALNUM + "-_")
        return f"https://api.invalid/v1/items?access_token={secret}&page=2", secret
    add("url-query-token", query)

    def discord(rng):
        secret = rs(rng, 68, ALNUM + "_-")
        return f"https://discord.com/api/webhooks/{rs(rng, 18, string.digits)}/{secret}", secret
    add("discord-webhook", discord)

    def prose(rng):
        secret = pw(rng, banned=" '\"")
        return f"Hi Sam, my password is {secret} until Friday.", secret
    add("prose-password", prose)

    def htpasswd(rng):
        secret = f"$apr1${rs(rng, 8)}${rs(rng, 22, ALNUM + './')}"
        return f"admin:{secret}", secret
    add("htpasswd-apr1", htpasswd)

    def docker_config(rng):
        secret = base64.b64encode(f"ci:{pw(rng)}".encode()).decode()
        return json.dumps({"auths": {"registry.invalid": {"auth": secret}}}), secret
    add("docker-config-auth", docker_config)

    def env_token(rng):
        secret = rs(rng, rng.randint(12, 40), ALNUM)
        return f"export SERVICE_AUTH_TOKEN={secret}", secret
    add("env-auth-token", env_token)
    return out


def _held_out() -> list[Format]:
    out: list[Format] = []

    def add(name: str, fn: Callable[[random.Random], tuple[str, str]]) -> None:
        out.append((name, fn))

    def whsec(rng):
        secret = "whsec_" + rs(rng, 32)
        return f"STRIPE_WEBHOOK_SECRET={secret}", secret
    add("stripe-webhook-secret", whsec)

    def hcl(rng):
        secret = pw(rng, banned='"\\$')
        return f'resource "db" "main" {{\n    password = "{secret}"\n}}', secret
    add("terraform-password", hcl)

    def ini(rng):
        secret = pw(rng, banned=" ")
        return f"[database]\npasswd : {secret}\n", secret
    add("ini-passwd", ini)

    def toml(rng):
        secret = rs(rng, 30, ALNUM + "-")
        return f"[service]\ntoken = '{secret}'\n", secret
    add("toml-token", toml)

    def k8s(rng):
        secret = b64(rng, 18)
        return f"apiVersion: v1\nkind: Secret\ndata:\n  password: {secret}\n", secret
    add("kubernetes-secret-data", k8s)

    def jdbc(rng):
        secret = rs(rng, 16, URL_SAFE)
        return f"jdbc:postgresql://db.invalid:5432/app?user=app&password={secret}", secret
    add("jdbc-query-password", jdbc)

    def smtp(rng):
        secret = _url_pw(rng)
        return f"EMAIL_URL=smtps://mailer:{secret}@smtp.invalid:465", secret
    add("smtp-url", smtp)

    def pgpassword(rng):
        secret = pw(rng, banned="' ")
        return f"PGPASSWORD='{secret}' psql -h db.invalid app", secret
    add("pgpassword-env", pgpassword)

    def js(rng):
        secret = rs(rng, 36)
        return f'const cfg = {{ apiSecret: "{secret}", retries: 3 }};', secret
    add("js-object-secret", js)

    def ruby(rng):
        secret = rs(rng, 128, HEX)
        return f':secret_key_base => "{secret}"', secret
    add("ruby-secret-key-base", ruby)

    def log(rng):
        secret = rs(rng, 28)
        return f"2024-05-01T10:00:00Z INFO auth ok token={secret} user=7", secret
    add("log-line-token", log)

    def markdown(rng):
        secret = "ghp_" + rs(rng, 36)
        return f"| name | value |\n|---|---|\n| API key | {secret} |", secret
    add("markdown-table-github", markdown)

    def cdata(rng):
        secret = pw(rng, banned="]<>")
        return f"<secret><![CDATA[{secret}]]></secret>", secret
    add("xml-cdata-secret", cdata)

    def gh_header(rng):
        secret = "ghp_" + rs(rng, 36)
        return f"Authorization: token {secret}", secret
    add("authorization-token-github", gh_header)

    def api_header(rng):
        secret = rs(rng, 32, HEX)
        return f"X-API-Key: {secret}", secret
    add("x-api-key-header", api_header)

    def gcp_sa(rng):
        text, body = pem(rng, "PRIVATE KEY")
        return json.dumps({"type": "service_account", "private_key": text + "\n"}), body
    add("gcp-service-account-json", gcp_sa)

    def py_dict(rng):
        secret = pw(rng, banned="'\\")
        return f"creds = {{'user': 'app', 'password': '{secret}'}}", secret
    add("python-dict-password", py_dict)

    def session_token(rng):
        secret = b64(rng, 150)
        return f'export AWS_SESSION_TOKEN="{secret}"', secret
    add("aws-session-token", session_token)

    def mongo_multi(rng):
        secret = _url_pw(rng)
        return f"mongodb://user:{secret}@host1.invalid:27017,host2.invalid:27017/db", secret
    add("mongodb-multi-host", mongo_multi)

    def passphrase(rng):
        secret = f"{words(rng, 3)} {rng.randint(10, 99)}"
        return f"The backup passphrase is: {secret}", secret
    add("prose-passphrase", passphrase)
    return out


DEV: list[Format] = _dev()
HELD_OUT: list[Format] = _held_out()


def pieces(secret: str, size: int = 8) -> list[str]:
    """What must not survive redaction: every `size`-character run of the secret (its lines,
    for a PEM body), or the whole secret when it is shorter."""
    lines = [line for line in secret.splitlines() if line.strip()] or [secret]
    found = []
    for line in lines:
        found += [line] if len(line) <= size else [line[i:i + size]
                                                   for i in range(len(line) - size + 1)]
    return found
