// What a page and its frames move over the network, request by request, from the DevTools
// protocol: bytes as they arrived on the wire (headers included; a cancelled download counts what
// it had received), the status on the wire (a revalidation is a 304 there, whatever the page is
// told), the encoding, and whether anything is still in flight.
//   const traffic = await Traffic.watch(page);  ...  traffic.summary().total

const kQuietMs = 400;  // no request in flight for this long: the loads of a step are done

export class Traffic {
  static async watch(page) {
    const session = await page.context().newCDPSession(page);
    const traffic = new Traffic(session);
    await session.send('Network.enable');
    return traffic;
  }

  constructor(session) {
    this.requests = new Map();  // requestId -> record
    this.inFlight = new Set();
    this.lastChange = Date.now();
    session.on('Network.requestWillBeSent', (e) => {
      // A redirect reuses the id: keep the first record's bytes, which loadingFinished replaces.
      if (!this.requests.has(e.requestId)) this.requests.set(e.requestId, { url: e.request.url, bytes: 0 });
      this.inFlight.add(e.requestId);
      this.lastChange = Date.now();
    });
    session.on('Network.requestServedFromCache', (e) => {
      const r = this.requests.get(e.requestId);
      if (r) r.fromCache = true;
    });
    session.on('Network.responseReceived', (e) => {
      const r = this.requests.get(e.requestId);
      if (!r) return;
      r.status = e.response.status;
      r.fromCache = r.fromCache || e.response.fromDiskCache || e.response.fromPrefetchCache;
      const h = Object.fromEntries(Object.entries(e.response.headers).map(([k, v]) => [k.toLowerCase(), v]));
      r.encoding = h['content-encoding'] ?? 'identity';
    });
    // The status as it came over the wire: a revalidated response is reported to the page as
    // the cached 200, but it was a 304 on the network.
    session.on('Network.responseReceivedExtraInfo', (e) => {
      const r = this.requests.get(e.requestId);
      if (r) r.wireStatus = e.statusCode;
    });
    // Bytes as they arrive, for requests that end without loadingFinished's total.
    session.on('Network.dataReceived', (e) => {
      const r = this.requests.get(e.requestId);
      if (r) r.received = (r.received ?? 0) + e.encodedDataLength;
    });
    const done = (e, failed) => {
      const r = this.requests.get(e.requestId);
      if (r) {
        r.bytes = failed ? r.received ?? 0 : e.encodedDataLength;
        r.failed = failed && `${e.errorText}${e.canceled ? ' (canceled)' : ''}`;
      }
      this.inFlight.delete(e.requestId);
      this.lastChange = Date.now();
    };
    session.on('Network.loadingFinished', (e) => done(e, false));
    session.on('Network.loadingFailed', (e) => done(e, true));
  }

  reset() { this.requests.clear(); }

  // Nothing in flight, and nothing started or ended for a while (counting from `since`, the
  // moment of the last scroll, since the frames it brings near start loading a frame later).
  quiet(since = 0) {
    return this.inFlight.size === 0 && Date.now() - Math.max(this.lastChange, since) >= kQuietMs;
  }

  summary() {
    const files = new Map();
    let total = 0;
    for (const r of this.requests.values()) {
      const u = new URL(r.url);
      if (!u.protocol.startsWith('http')) continue;
      const key = u.pathname;
      const f = files.get(key) ?? { requests: 0, bytes: 0, statuses: new Map(), encodings: new Set() };
      f.requests += 1;
      f.bytes += r.bytes;
      // The wire's status where the protocol reported it (not always: then the page's).
      const status = r.failed ? `failed: ${r.failed}` : `${r.wireStatus ?? r.status}${r.fromCache ? ' (cache)' : ''}`;
      f.statuses.set(status, (f.statuses.get(status) ?? 0) + 1);
      if (r.encoding && (r.wireStatus ?? r.status) === 200) f.encodings.add(r.encoding);
      files.set(key, f);
      total += r.bytes;
    }
    return { total, files };
  }
}
