// A turn through ai-sdk-provider-codex-cli, an app-server client from the npm
// registry that this project did not write. It starts `codex app-server` by name
// from PATH (its @openai/codex dependency is optional and not installed) and stops
// it with SIGTERM when closed. CLIENT_MODULE is the file URL of the package's entry.
const { createCodexAppServer } = await import(process.env.CLIENT_MODULE);

const provider = createCodexAppServer({
  defaultSettings: { cwd: process.env.WORK, minCodexVersion: "0.153.0", requestTimeoutMs: 30000 },
});
try {
  const model = provider("gpt-fake");
  const res = await model.doGenerate({
    prompt: [{ role: "user", content: [{ type: "text", text: process.env.PROMPT ?? "Say hello." }] }],
  });
  const text = res.content.filter((c) => c.type === "text").map((c) => c.text).join("");
  console.log(JSON.stringify({ text, finishReason: res.finishReason }));
} finally {
  await provider.close();
}
