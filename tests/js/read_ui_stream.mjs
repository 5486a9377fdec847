// Reads UI message streams with the `ai` package's own client code, as useChat does: the
// transport's processResponseStream (its SSE parser and the chunk schema), then
// readUIMessageStream. Input on stdin: {"streams": {name: body text}, "chunk": bytes per
// piece}. Output on stdout: {name: {"messages": [every message the reader wrote, in order],
// "errors": [messages of the errors it reported]}}.
import { DefaultChatTransport, readUIMessageStream } from "ai";

async function readAll(stream) {
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

function body(text, size) {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) {
        controller.close();
        return;
      }
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

async function read(text, size) {
  const transport = new DefaultChatTransport();
  const errors = [];
  const messages = [];
  const chunks = transport.processResponseStream(body(text, size));
  const stream = readUIMessageStream({
    stream: chunks,
    onError: (error) => errors.push(String(error && error.message ? error.message : error)),
  });
  for await (const message of stream) messages.push(message);
  return { messages: JSON.parse(JSON.stringify(messages)), errors };
}

const input = JSON.parse(await readAll(process.stdin));
const out = {};
for (const [name, text] of Object.entries(input.streams)) {
  out[name] = await read(text, input.chunk || 4096);
}
process.stdout.write(JSON.stringify(out));
