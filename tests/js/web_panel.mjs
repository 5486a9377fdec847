// Drives the example page (examples/web) in headless Chromium with playwright-core: opens it,
// starts the stream, and samples the first tool panel while the stream plays.
// Usage: node web_panel.mjs URL CHROMIUM USER_DATA_DIR. Prints JSON: {"samples": [{"text",
// "final", "status"}...], "done": bool, "text": the answer text shown}.
import { chromium } from "playwright-core";

const [url, executablePath, userDataDir] = process.argv.slice(2);
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath,
  headless: true,
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});
try {
  const page = context.pages()[0] || (await context.newPage());
  await page.goto(url);
  await page.click("#go");
  const samples = [];
  const deadline = Date.now() + 12000;
  let done = false;
  while (Date.now() < deadline) {
    const sample = await page.evaluate(() => {
      const box = document.querySelector(".tool");
      return {
        panel: box ? { text: box.querySelector(".args").textContent, final: box.dataset.final,
          status: box.querySelector(".status").textContent } : null,
        done: document.body.dataset.done === "true",
      };
    });
    if (sample.panel) samples.push(sample.panel);
    if (sample.done) {
      done = true;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const text = await page.evaluate(() =>
    [...document.querySelectorAll("#message .text")].map((el) => el.textContent).join(""));
  process.stdout.write(JSON.stringify({ samples, done, text }));
} finally {
  await context.close();
}
