-- Drives a real headless Neovim against skewlsp, as a user without any skewlsp plugin would:
-- open a kernel, wait for diagnostics, hover the loop, pick the preview code action through
-- Neovim's own code-action path (which applies without asking), run every code lens.
-- Writes what it saw as JSON to $SKEWLSP_E2E_OUT; the pytest side makes the assertions.
-- $SKEWLSP_NVIM_CONFIG, if set, is a Lua file of client configuration run first (the
-- lines docs/editors.md tells users to add).
-- Usage: nvim --headless --clean -l nvim_e2e.lua <kernel.py>

local out_path = assert(os.getenv("SKEWLSP_E2E_OUT"), "SKEWLSP_E2E_OUT not set")
local server_cmd = vim.json.decode((assert(os.getenv("SKEWLSP_CMD"), "SKEWLSP_CMD not set")))
local kernel = assert(arg[1], "usage: nvim -l nvim_e2e.lua <kernel.py>")
local TIMEOUT = 30000
local PREVIEW_TITLE = "Preview the rewritten loop (read-only)"

local seen = { notifications = {}, steps = {} }

local function finish()
  local file = assert(io.open(out_path, "w"))
  file:write(vim.json.encode(seen))
  file:close()
  vim.cmd("qa!")
end

-- Every message Neovim would show the user (e.g. "does not support command ...").
vim.notify = function(message, level)
  table.insert(seen.notifications, { message = tostring(message), level = level or 0 })
end

local ok, failure = pcall(function()
  local config = os.getenv("SKEWLSP_NVIM_CONFIG")
  if config and config ~= "" then
    dofile(config)
  end
  vim.cmd.edit(vim.fn.fnameescape(kernel))
  local buf = vim.api.nvim_get_current_buf()
  local before = vim.api.nvim_buf_get_lines(buf, 0, -1, false)

  local client_id = vim.lsp.start({
    name = "skewlsp",
    cmd = server_cmd,
    root_dir = vim.fn.fnamemodify(kernel, ":p:h"),
    settings = vim.empty_dict(),
    init_options = {},
  })
  assert(client_id, "vim.lsp.start returned nil")
  local client = assert(vim.lsp.get_client_by_id(client_id))
  table.insert(seen.steps, "started")

  assert(
    vim.wait(TIMEOUT, function()
      return #vim.diagnostic.get(buf) > 0
    end, 50),
    "no diagnostics"
  )
  seen.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(seen.diagnostics, { code = d.code, lnum = d.lnum, message = d.message })
  end
  table.insert(seen.steps, "diagnostics")

  -- The first `for ... pl.pipeline(` line.
  local for_line
  for index, text in ipairs(before) do
    if text:find("pl.pipeline(", 1, true) then
      for_line = index - 1
      break
    end
  end
  assert(for_line, "no pl.pipeline loop in the kernel")
  local column = before[for_line + 1]:find("for", 1, true) - 1
  local hover = client:request_sync("textDocument/hover", {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = for_line, character = column },
  }, TIMEOUT, buf)
  assert(hover and hover.result, "no hover: " .. vim.inspect(hover))
  seen.hover = hover.result.contents.value
  table.insert(seen.steps, "hover")

  -- The preview through Neovim's own code-action path: applied at once, no question asked.
  vim.api.nvim_win_set_cursor(0, { for_line + 1, column })
  vim.lsp.buf.code_action({
    apply = true,
    filter = function(action)
      return action.title == PREVIEW_TITLE
    end,
  })
  local preview_buf
  assert(
    vim.wait(TIMEOUT, function()
      for _, other in ipairs(vim.api.nvim_list_bufs()) do
        if vim.api.nvim_buf_get_name(other):match("%-L" .. (for_line + 1) .. "%.py$") then
          preview_buf = other
          return true
        end
      end
      return false
    end, 50),
    "the preview was not shown"
  )
  seen.preview_name = vim.api.nvim_buf_get_name(preview_buf)
  seen.preview_lines = vim.api.nvim_buf_get_lines(preview_buf, 0, -1, false)
  -- Which buffer each window of the tab shows once the preview is up.
  seen.windows = {}
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    table.insert(seen.windows, vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(win)))
  end
  table.insert(seen.steps, "preview")

  -- Every code lens, run the way Neovim runs a lens command.
  vim.lsp.codelens.refresh({ bufnr = buf })
  assert(
    vim.wait(TIMEOUT, function()
      return #vim.lsp.codelens.get(buf) > 0
    end, 50),
    "no code lenses"
  )
  seen.lenses = {}
  local shown_before = #vim.api.nvim_list_bufs()
  for _, lens in ipairs(vim.lsp.codelens.get(buf)) do
    table.insert(seen.lenses, { title = lens.command.title, command = lens.command.command })
    client:exec_cmd(lens.command, { bufnr = buf })
  end
  vim.wait(TIMEOUT, function()
    return #vim.api.nvim_list_bufs() >= shown_before + 1
  end, 50)
  seen.buffers = {}
  for _, other in ipairs(vim.api.nvim_list_bufs()) do
    table.insert(seen.buffers, vim.api.nvim_buf_get_name(other))
  end
  seen.final_windows = {}
  for _, win in ipairs(vim.api.nvim_tabpage_list_wins(0)) do
    table.insert(seen.final_windows, vim.api.nvim_buf_get_name(vim.api.nvim_win_get_buf(win)))
  end
  table.insert(seen.steps, "lenses")

  seen.modified = vim.bo[buf].modified
  seen.unchanged = vim.deep_equal(before, vim.api.nvim_buf_get_lines(buf, 0, -1, false))
  client:stop()
  vim.wait(5000, function()
    return client:is_stopped()
  end, 50)
end)

if not ok then
  seen.error = tostring(failure)
end
finish()
