// "Your devices" and linking a browser (app/web/routes/devices.py): Copy buttons, the link
// code focused when htmx swaps it in, and passkeys through the browser's own WebAuthn API
// (navigator.credentials): the server's options (py_webauthn's JSON) in, the credential out.
// Without JavaScript everything but passkeys works: the codes can be selected and copied.
"use strict";
(function () {
  function b64urlToBytes(text) {
    const padded = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
    return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
  }
  function bytesToB64url(buffer) {
    let text = "";
    for (const byte of new Uint8Array(buffer)) text += String.fromCharCode(byte);
    return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function creationOptions(json) {
    if (window.PublicKeyCredential && PublicKeyCredential.parseCreationOptionsFromJSON) {
      return PublicKeyCredential.parseCreationOptionsFromJSON(json);
    }
    const options = Object.assign({}, json, { challenge: b64urlToBytes(json.challenge) });
    options.user = Object.assign({}, json.user, { id: b64urlToBytes(json.user.id) });
    options.excludeCredentials = (json.excludeCredentials || []).map((c) => Object.assign({}, c, { id: b64urlToBytes(c.id) }));
    return options;
  }
  function requestOptions(json) {
    if (window.PublicKeyCredential && PublicKeyCredential.parseRequestOptionsFromJSON) {
      return PublicKeyCredential.parseRequestOptionsFromJSON(json);
    }
    const options = Object.assign({}, json, { challenge: b64urlToBytes(json.challenge) });
    options.allowCredentials = (json.allowCredentials || []).map((c) => Object.assign({}, c, { id: b64urlToBytes(c.id) }));
    return options;
  }
  function credentialJSON(credential) {
    if (typeof credential.toJSON === "function") return credential.toJSON();
    const response = credential.response, out = { clientDataJSON: bytesToB64url(response.clientDataJSON) };
    if (response.attestationObject) {
      out.attestationObject = bytesToB64url(response.attestationObject);
      out.transports = response.getTransports ? response.getTransports() : [];
    } else {
      out.authenticatorData = bytesToB64url(response.authenticatorData);
      out.signature = bytesToB64url(response.signature);
      if (response.userHandle) out.userHandle = bytesToB64url(response.userHandle);
    }
    return {
      id: credential.id, rawId: bytesToB64url(credential.rawId), type: credential.type, response: out,
      clientExtensionResults: credential.getClientExtensionResults(),
      authenticatorAttachment: credential.authenticatorAttachment || undefined,
    };
  }
  async function post(url, body) {
    const response = await fetch(url, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "Accept": "application/json" },
      body: JSON.stringify(body || {}),
    });
    const data = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(typeof data.detail === "string" ? data.detail : "");
    return data;
  }
  function bringHistory(button) {
    const question = document.getElementById("history-question");
    if (!question) return false;
    const chosen = question.querySelector("input[name=bring_history]:checked");
    if (chosen) return chosen.value === "yes";
    const first = question.querySelector("input[name=bring_history]");
    first.reportValidity();
    return null;
  }
  async function passkey(button) {
    const status = button.parentElement.querySelector(".passkey-status");
    const say = (words) => { if (status) status.textContent = words; };
    if (!window.PublicKeyCredential || !navigator.credentials) { say(button.dataset.unsupported); return; }
    button.disabled = true;
    try {
      if (button.dataset.passkey === "add") {
        const options = await post("/api/passkeys/options");
        const credential = await navigator.credentials.create({ publicKey: creationOptions(options) });
        await post("/api/passkeys", { credential: credentialJSON(credential) });
        say(button.dataset.added);
        window.location.assign("/devices#passkeys");
        window.location.reload();
      } else {
        const bring = bringHistory(button);
        if (bring === null) return;
        const options = await post("/api/passkeys/sign-in/options");
        const credential = await navigator.credentials.get({ publicKey: requestOptions(options) });
        await post("/api/passkeys/sign-in", { credential: credentialJSON(credential), bring_history: bring });
        window.location.assign("/stats?linked=1");
      }
    } catch (error) {
      say((error && error.message) || button.dataset.failed);
      if (error && error.name && error.name !== "Error") say(button.dataset.failed);
    } finally {
      button.disabled = false;
    }
  }
  document.addEventListener("click", function (event) {
    const copy = event.target.closest("[data-copy]");
    if (copy) {
      const field = document.getElementById(copy.dataset.copy);
      const status = copy.parentElement.querySelector(".copy-status");
      const done = () => { if (status) status.textContent = copy.dataset.copied; };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(field.value).then(done, () => { field.focus(); field.select(); });
      } else {
        field.focus();
        field.select();
      }
      return;
    }
    const key = event.target.closest("[data-passkey]");
    if (key) passkey(key);
  });
  // The link code swapped in by "Add a device": focus it, so it is read out and in view.
  document.addEventListener("htmx:after:swap", function () {
    const box = document.getElementById("link-code");
    if (box && box.matches("section") && !box.dataset.seen) {
      box.dataset.seen = "1";
      box.focus();
    }
  });
})();
