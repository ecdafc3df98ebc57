-- A real headless Neovim with run = "onSave": open a kernel, wait for its diagnostics,
-- change stage=2 to stage=1 and :write, then wait for the diagnostics of the saved text.
-- Neovim 0.11 pulls diagnostics only when it opens or changes a document, and does not
-- accept workspace/diagnostic/refresh: the save's result must reach it all the same.
-- Writes what it saw as JSON to $SKEWLSP_E2E_OUT; the pytest side makes the assertions.
-- Usage: nvim --headless --clean -l nvim_on_save.lua <kernel.py>

local out_path = assert(os.getenv("SKEWLSP_E2E_OUT"), "SKEWLSP_E2E_OUT not set")
local server_cmd = vim.json.decode((assert(os.getenv("SKEWLSP_CMD"), "SKEWLSP_CMD not set")))
local kernel = assert(arg[1], "usage: nvim -l nvim_on_save.lua <kernel.py>")
local TIMEOUT = 30000

local seen = { steps = {} }

local function codes(buf)
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(found, d.code)
  end
  table.sort(found)
  return table.concat(found, ",")
end

local ok, failure = pcall(function()
  vim.cmd.edit(vim.fn.fnameescape(kernel))
  local buf = vim.api.nvim_get_current_buf()
  local client_id = vim.lsp.start({
    name = "skewlsp",
    cmd = server_cmd,
    root_dir = vim.fn.fnamemodify(kernel, ":p:h"),
    settings = vim.empty_dict(),
    init_options = { run = "onSave" },
  })
  assert(client_id, "vim.lsp.start returned nil")
  assert(vim.wait(TIMEOUT, function() return codes(buf) ~= "" end, 50), "no diagnostics")
  seen.opened = codes(buf)
  table.insert(seen.steps, "opened")

  local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  for index, text in ipairs(lines) do
    local at = text:find("stage=2", 1, true)
    if at then
      local column = at + #"stage=" - 1
      vim.api.nvim_buf_set_text(buf, index - 1, column, index - 1, column + 1, { "1" })
      break
    end
  end
  vim.wait(500, function() return false end, 50) -- the edit is not linted: nothing changes
  seen.edited = codes(buf)
  vim.cmd.write()
  table.insert(seen.steps, "saved")
  vim.wait(TIMEOUT, function() return codes(buf) ~= seen.opened end, 50)
  seen.saved = codes(buf)
  local client = assert(vim.lsp.get_client_by_id(client_id))
  client:stop()
  vim.wait(5000, function() return client:is_stopped() end, 50)
end)

if not ok then
  seen.error = tostring(failure)
end
local file = assert(io.open(out_path, "w"))
file:write(vim.json.encode(seen))
file:close()
vim.cmd("qa!")
