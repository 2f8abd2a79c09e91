"""Passkeys (issue 38) with py_webauthn: the relying party, and the two ceremonies' options and
checks. The browser side is ``static/devices.js`` (the browser's own WebAuthn API).

The relying party comes from one setting, the public URL (``TRIPEAKS_PUBLIC_URL``): its host
is the relying party's id, its origin the only origin accepted. Browsers allow passkeys on
https, and on ``http://localhost``; never on an IP address such as ``127.0.0.1``. Without the
setting, a request to ``http://localhost:<port>`` (development, the tests) is its own relying
party; anywhere else the page says what is missing instead of failing (:class:`Unavailable`).

A challenge is 32 random bytes, kept (hashed, single use, 5 minutes) in the store like a link
code, so a ceremony begun on one server ends on another; a challenge is found again from the
``clientDataJSON`` the authenticator signed. Passkeys are discoverable credentials (resident
keys), user verification preferred, no attestation.
"""

from __future__ import annotations

import base64
import enum
import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass
from ipaddress import ip_address
from typing import Any, Final
from urllib.parse import urlsplit

from fastapi import Request
from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    options_to_json,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers.exceptions import InvalidAuthenticationResponse, InvalidRegistrationResponse
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from app.store.identity import Passkey

RP_NAME: Final = "TriPeaks"
CHALLENGE_TTL_S: Final = 300.0
TIMEOUT_MS: Final = 120_000


class Unavailable(enum.Enum):
    """Why passkeys cannot work at the address the page was opened at."""

    NEEDS_HTTPS = "needs-https"
    """The public URL (or the address) is plain http on a host that is not localhost."""
    IP_ADDRESS = "ip-address"
    """An IP address (127.0.0.1): browsers refuse passkeys there; ``http://localhost`` works."""
    NO_PUBLIC_URL = "no-public-url"
    """No ``TRIPEAKS_PUBLIC_URL`` and not localhost: the operator has to set it."""
    OTHER_ADDRESS = "other-address"
    """Opened at another address than the public URL's."""


class PasskeyRefused(ValueError):
    """The authenticator's answer did not check out (or its challenge is unknown or used)."""


@dataclass(frozen=True, slots=True)
class RelyingParty:
    id: str
    origin: str


def _localhost(host: str) -> bool:
    return host == "localhost" or host.endswith(".localhost")


def _ip(host: str) -> bool:
    try:
        ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def relying_party(request: Request) -> RelyingParty | Unavailable:
    """Who the passkeys are for at the address of this request, or why there are none."""
    here = f"{request.url.scheme}://{request.url.netloc}"
    configured: str | None = request.app.state.settings.public_url
    if configured:
        parts = urlsplit(configured)
        host = parts.hostname or ""
        if _ip(host):
            return Unavailable.IP_ADDRESS
        if parts.scheme != "https" and not _localhost(host):
            return Unavailable.NEEDS_HTTPS
        if here != configured:
            return Unavailable.OTHER_ADDRESS
        return RelyingParty(host, configured)
    host = request.url.hostname or ""
    if _ip(host):
        return Unavailable.IP_ADDRESS
    if not _localhost(host):
        return Unavailable.NO_PUBLIC_URL
    return RelyingParty(host, here)


def user_handle(key: bytes, player: str) -> bytes:
    """The passkey's user handle: stable for the player (an authenticator keeps one passkey a
    player and site), and not the player id (which would be a bearer secret in a password
    manager's export)."""
    return hmac.new(key, b"tripeaks.passkey-user:" + player.encode(), hashlib.sha256).digest()[:16]


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode("ascii").rstrip("=")


def challenge_text(credential: Any) -> str:
    """The challenge (base64url) inside the credential's signed ``clientDataJSON``."""
    try:
        data = credential["response"]["clientDataJSON"]
        client = json.loads(base64.urlsafe_b64decode(data + "=" * (-len(data) % 4)))
        found = client["challenge"]
    except (KeyError, TypeError, ValueError) as error:
        raise PasskeyRefused("not a credential") from error
    if not isinstance(found, str) or not 20 <= len(found) <= 200:
        raise PasskeyRefused("not a challenge")
    return found


def registration_options(
    party: RelyingParty, key: bytes, player: str, name: str, existing: list[Passkey]
) -> tuple[dict[str, Any], str]:
    """The options of ``navigator.credentials.create`` (as JSON) and their challenge."""
    challenge = secrets.token_bytes(32)
    options = generate_registration_options(
        rp_id=party.id,
        rp_name=RP_NAME,
        user_id=user_handle(key, player),
        user_name=name,
        user_display_name=name,
        challenge=challenge,
        timeout=TIMEOUT_MS,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED,
            user_verification=UserVerificationRequirement.PREFERRED,
        ),
        exclude_credentials=[PublicKeyCredentialDescriptor(id=_unb64(p.id)) for p in existing],
    )
    found: dict[str, Any] = json.loads(options_to_json(options))
    return found, b64url(challenge)


def verify_registration(party: RelyingParty, credential: Any, challenge: str) -> tuple[str, bytes, int]:
    """(credential id, public key, sign count) of a new passkey, once its answer checks out."""
    try:
        verified = verify_registration_response(
            credential=credential,
            expected_challenge=_unb64(challenge),
            expected_rp_id=party.id,
            expected_origin=party.origin,
        )
    except (InvalidRegistrationResponse, KeyError, TypeError, ValueError) as error:
        raise PasskeyRefused(str(error)) from error
    return b64url(verified.credential_id), verified.credential_public_key, verified.sign_count


def authentication_options(party: RelyingParty) -> tuple[dict[str, Any], str]:
    """The options of ``navigator.credentials.get`` (any of the site's passkeys) and their challenge."""
    challenge = secrets.token_bytes(32)
    options = generate_authentication_options(
        rp_id=party.id,
        challenge=challenge,
        timeout=TIMEOUT_MS,
        user_verification=UserVerificationRequirement.PREFERRED,
    )
    found: dict[str, Any] = json.loads(options_to_json(options))
    return found, b64url(challenge)


def credential_id(credential: Any) -> str:
    found = credential.get("id") if isinstance(credential, dict) else None
    if not isinstance(found, str) or not 1 <= len(found) <= 1400:
        raise PasskeyRefused("no credential id")
    return found


def verify_authentication(party: RelyingParty, credential: Any, challenge: str, passkey: Passkey) -> int:
    """The passkey's new sign count, once the signature checks out."""
    try:
        verified = verify_authentication_response(
            credential=credential,
            expected_challenge=_unb64(challenge),
            expected_rp_id=party.id,
            expected_origin=party.origin,
            credential_public_key=passkey.public_key,
            credential_current_sign_count=passkey.sign_count,
        )
    except (InvalidAuthenticationResponse, KeyError, TypeError, ValueError) as error:
        raise PasskeyRefused(str(error)) from error
    return int(verified.new_sign_count)


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
