// Directed self-checking bench for the generated CSR block of register-maps/example.yaml, run
// under Icarus (4-state, so X on an output after reset is caught) for both reset styles:
//   iverilog -g2005 [-DASYNC_LOW] -o tb.vvp tb_example_csr.v example_csr.v && vvp tb.vvp
// It checks the AXI4-Lite protocol behaviour and every access type the map uses. The closing
// line is "N passed, N failed". Randomised state-machine testing against a reference model
// comes with the Verilator harness; this bench pins the documented semantics.
`timescale 1ns / 1ps
`default_nettype none

module tb_example_csr;
  localparam integer NUM_PORTS = 3;

  reg clk = 1'b0;
  always #5 clk = ~clk;
  reg rst_line = 1'b1; // asserted
`ifdef ASYNC_LOW
  wire rst_n = !rst_line;
`else
  wire rst = rst_line;
`endif

  reg  [8:0]  awaddr = 9'd0;
  reg         awvalid = 1'b0;
  wire        awready;
  reg  [31:0] wdata = 32'd0;
  reg  [3:0]  wstrb = 4'd0;
  reg         wvalid = 1'b0;
  wire        wready;
  wire [1:0]  bresp;
  wire        bvalid;
  reg         bready = 1'b0;
  reg  [8:0]  araddr = 9'd0;
  reg         arvalid = 1'b0;
  wire        arready;
  wire [31:0] rdata;
  wire [1:0]  rresp;
  wire        rvalid;
  reg         rready = 1'b0;

  wire ctrl_enable, ctrl_soft_reset;
  wire [2:0] ctrl_mode;
  reg  busy = 1'b1, link_up = 1'b0;
  reg  [7:0] fifo_level = 8'h5a;
  wire rx_done, tx_done, err;
  reg  rx_done_set = 1'b0, tx_done_set = 1'b0, err_set = 1'b0;
  wire en_rx_done, en_tx_done, en_err;
  wire [31:0] pkt_count;
  reg  pkt_incr = 1'b0;
  wire retrain, link_seen, lock;
  reg  retrain_clr = 1'b0, link_seen_set = 1'b0, lock_clr = 1'b0;
  wire [15:0] tx_tail;
  wire [31:0] scratch;
  wire [63:0] base_addr;
  wire [NUM_PORTS-1:0] port_enable, port_promisc;
  wire [NUM_PORTS*2-1:0] port_speed;
  reg  [NUM_PORTS-1:0] port_speed_we = {NUM_PORTS{1'b0}};
  reg  [NUM_PORTS*2-1:0] port_speed_d = {NUM_PORTS*2{1'b0}};
  wire [NUM_PORTS*16-1:0] port_errors;
  reg  [NUM_PORTS-1:0] port_errors_incr = {NUM_PORTS{1'b0}};
  wire irq;

  example_csr #(.NUM_PORTS(NUM_PORTS)) dut (
    .clk(clk),
`ifdef ASYNC_LOW
    .rst_n(rst_n),
`else
    .rst(rst),
`endif
    .s_axil_awaddr(awaddr), .s_axil_awprot(3'b000), .s_axil_awvalid(awvalid),
    .s_axil_awready(awready), .s_axil_wdata(wdata), .s_axil_wstrb(wstrb),
    .s_axil_wvalid(wvalid), .s_axil_wready(wready), .s_axil_bresp(bresp),
    .s_axil_bvalid(bvalid), .s_axil_bready(bready), .s_axil_araddr(araddr),
    .s_axil_arprot(3'b000), .s_axil_arvalid(arvalid), .s_axil_arready(arready),
    .s_axil_rdata(rdata), .s_axil_rresp(rresp), .s_axil_rvalid(rvalid), .s_axil_rready(rready),
    .ctrl_enable_o(ctrl_enable), .ctrl_mode_o(ctrl_mode), .ctrl_soft_reset_o(ctrl_soft_reset),
    .status_busy_i(busy), .status_link_up_i(link_up), .status_fifo_level_i(fifo_level),
    .int_status_rx_done_o(rx_done), .int_status_rx_done_set_i(rx_done_set),
    .int_status_tx_done_o(tx_done), .int_status_tx_done_set_i(tx_done_set),
    .int_status_error_o(err), .int_status_error_set_i(err_set),
    .int_en_rx_done_o(en_rx_done), .int_en_tx_done_o(en_tx_done), .int_en_error_o(en_err),
    .pkt_count_count_o(pkt_count), .pkt_count_count_incr_i(pkt_incr),
    .events_retrain_o(retrain), .events_retrain_clr_i(retrain_clr),
    .events_link_seen_o(link_seen), .events_link_seen_set_i(link_seen_set),
    .events_lock_o(lock), .events_lock_clr_i(lock_clr),
    .tx_tail_index_o(tx_tail), .scratch_value_o(scratch), .base_addr_addr_o(base_addr),
    .port_cfg_enable_o(port_enable), .port_cfg_promisc_o(port_promisc),
    .port_link_speed_o(port_speed), .port_link_speed_we_i(port_speed_we),
    .port_link_speed_d_i(port_speed_d), .port_link_errors_o(port_errors),
    .port_link_errors_incr_i(port_errors_incr), .irq_o(irq)
  );

  integer passed = 0;
  integer failed = 0;
  integer pulses = 0;
  always @(posedge clk) if (ctrl_soft_reset === 1'b1) pulses = pulses + 1;

  task check(input [255:0] what, input [63:0] got, input [63:0] want);
    begin
      if (got === want) begin
        passed = passed + 1;
      end else begin
        failed = failed + 1;
        $display("FAIL %0s: got %h, want %h (t=%0t)", what, got, want, $time);
      end
    end
  endtask

  // One AXI4-Lite write: address and data together, then wait for the response.
  task axil_write(input [8:0] addr, input [31:0] data, input [3:0] strb, input [1:0] want);
    begin
      @(negedge clk);
      awaddr = addr; wdata = data; wstrb = strb; awvalid = 1'b1; wvalid = 1'b1; bready = 1'b1;
      @(posedge clk);
      while (!(awready && wready)) @(posedge clk);
      @(negedge clk);
      awvalid = 1'b0; wvalid = 1'b0;
      while (!bvalid) @(negedge clk);
      check("bresp", {62'd0, bresp}, {62'd0, want});
      @(negedge clk);
      bready = 1'b0;
    end
  endtask

  reg [31:0] last_rdata;
  task axil_read(input [8:0] addr, input [31:0] want, input [1:0] want_resp);
    begin
      @(negedge clk);
      araddr = addr; arvalid = 1'b1; rready = 1'b1;
      @(posedge clk);
      while (!arready) @(posedge clk);
      @(negedge clk);
      arvalid = 1'b0;
      while (!rvalid) @(negedge clk);
      last_rdata = rdata;
      check("rresp", {62'd0, rresp}, {62'd0, want_resp});
      if (want_resp == 2'b00) check("rdata", {32'd0, rdata}, {32'd0, want});
      @(negedge clk);
      rready = 1'b0;
    end
  endtask

  task pulse_cycle;
    begin
      @(negedge clk);
    end
  endtask

  initial begin
    repeat (3) @(posedge clk);
    // Nothing is accepted while in reset.
    awvalid = 1'b1; wvalid = 1'b1; arvalid = 1'b1;
    @(negedge clk);
    check("awready in reset", {63'd0, awready}, 64'd0);
    check("arready in reset", {63'd0, arready}, 64'd0);
    awvalid = 1'b0; wvalid = 1'b0; arvalid = 1'b0;
    rst_line = 1'b0;
    @(negedge clk);
    // No X on any output after reset.
    check("no X after reset", {63'd0, ^{ctrl_enable, ctrl_mode, ctrl_soft_reset, rx_done, tx_done,
      err, en_rx_done, en_tx_done, en_err, pkt_count, retrain, link_seen, lock, tx_tail, scratch,
      base_addr, port_enable, port_promisc, port_speed, port_errors, irq, awready, wready, bvalid,
      bresp, arready, rvalid, rdata, rresp} === 1'bx}, 64'd0);
    check("port enable reset", {61'd0, port_enable}, {61'd0, {NUM_PORTS{1'b1}}});

    // rw with byte strobes
    axil_write(9'h01c, 32'hdeadbeef, 4'b1111, 2'b00);
    check("scratch out", {32'd0, scratch}, 64'hdeadbeef);
    axil_write(9'h01c, 32'h11223344, 4'b0101, 2'b00);
    axil_read(9'h01c, 32'hde22be44, 2'b00);
    // unaligned address bits are ignored; the word is addressed
    axil_read(9'h01e, 32'hde22be44, 2'b00);
    // ctrl: enable [0], mode [3:1]
    axil_write(9'h000, 32'h0000000b, 4'b0001, 2'b00);
    check("ctrl enable", {63'd0, ctrl_enable}, 64'd1);
    check("ctrl mode", {61'd0, ctrl_mode}, 64'd5);
    axil_read(9'h000, 32'h0000000b, 2'b00);
    // wp: one-cycle pulse, reads as 0
    pulses = 0;
    axil_write(9'h000, 32'h8000000b, 4'b1000, 2'b00);
    repeat (3) @(negedge clk);
    check("soft_reset pulses", pulses, 1);
    axil_read(9'h000, 32'h0000000b, 2'b00);
    // unmapped: DECERR; read-only: SLVERR on write; write-only: SLVERR on read
    axil_read(9'h040, 32'h0, 2'b11);
    axil_write(9'h040, 32'h1, 4'b1111, 2'b11);
    axil_write(9'h004, 32'h1, 4'b1111, 2'b10);
    axil_read(9'h004, {16'd0, 8'h5a, 6'd0, 1'b0, 1'b1}, 2'b00);
    axil_write(9'h018, 32'h00001234, 4'b0011, 2'b00);
    check("tx_tail out", {48'd0, tx_tail}, 64'h1234);
    axil_read(9'h018, 32'h0, 2'b10);

    // 64-bit: low half alone changes nothing; high half commits both
    axil_write(9'h020, 32'h89abcdef, 4'b1111, 2'b00);
    check("base unchanged after low half", base_addr, 64'd0);
    axil_write(9'h024, 32'h01234567, 4'b1111, 2'b00);
    check("base committed", base_addr, 64'h0123456789abcdef);
    axil_read(9'h020, 32'h89abcdef, 2'b00);
    axil_read(9'h024, 32'h01234567, 2'b00);

    // w1c + hw_set, interrupt enable pair, irq
    @(negedge clk); rx_done_set = 1'b1; @(negedge clk); rx_done_set = 1'b0;
    check("rx_done set by hw", {63'd0, rx_done}, 64'd1);
    check("irq masked", {63'd0, irq}, 64'd0);
    axil_write(9'h00c, 32'h1, 4'b0001, 2'b00);
    check("irq enabled", {63'd0, irq}, 64'd1);
    // a hardware set in the same cycle as the software clear wins
    rx_done_set = 1'b1;
    axil_write(9'h008, 32'h1, 4'b0001, 2'b00);
    rx_done_set = 1'b0;
    check("hw set beats sw clear", {63'd0, rx_done}, 64'd1);
    axil_write(9'h008, 32'h1, 4'b0001, 2'b00);
    check("w1c cleared", {63'd0, rx_done}, 64'd0);
    check("irq cleared", {63'd0, irq}, 64'd0);
    // a W1C write with strobe off clears nothing
    @(negedge clk); err_set = 1'b1; @(negedge clk); err_set = 1'b0;
    axil_write(9'h008, 32'h4, 4'b0000, 2'b00);
    check("w1c with strobe off", {63'd0, err}, 64'd1);

    // rc + counter
    repeat (3) begin @(negedge clk); pkt_incr = 1'b1; end
    @(negedge clk); pkt_incr = 1'b0;
    axil_read(9'h010, 32'd3, 2'b00);
    axil_read(9'h010, 32'd0, 2'b00);

    // w1s + hw_clear, w0c + hw_set, rs + hw_clear
    axil_write(9'h014, 32'h1, 4'b0001, 2'b00);
    check("w1s set", {63'd0, retrain}, 64'd1);
    @(negedge clk); retrain_clr = 1'b1; @(negedge clk); retrain_clr = 1'b0;
    check("hw clear", {63'd0, retrain}, 64'd0);
    @(negedge clk); link_seen_set = 1'b1; @(negedge clk); link_seen_set = 1'b0;
    axil_write(9'h014, 32'h2, 4'b0001, 2'b00);
    check("w0c writing 1 keeps", {63'd0, link_seen}, 64'd1);
    axil_write(9'h014, 32'h0, 4'b0001, 2'b00);
    check("w0c writing 0 clears", {63'd0, link_seen}, 64'd0);
    axil_read(9'h014, 32'h0, 2'b00);
    check("rs sets on read", {63'd0, lock}, 64'd1);
    axil_read(9'h014, 32'h100, 2'b00);

    // group: port[1].cfg at 0x110; element 3 is past NUM_PORTS = 3; 0x108 holds no register
    axil_write(9'h110, 32'h2, 4'b0001, 2'b00);
    check("port1 promisc", {61'd0, port_promisc}, 64'b010);
    check("port1 enable cleared", {61'd0, port_enable}, 64'b101);
    axil_read(9'h110, 32'h2, 2'b00);
    axil_read(9'h100, 32'h1, 2'b00);
    axil_read(9'h130, 32'h0, 2'b11);
    axil_write(9'h130, 32'h1, 4'b0001, 2'b11);
    axil_read(9'h108, 32'h0, 2'b11);
    // hw_write and counter in element 2
    @(negedge clk); port_speed_we = 3'b100; port_speed_d = 6'b10_00_00;
    port_errors_incr = 3'b100;
    @(negedge clk); port_speed_we = 3'b000; port_errors_incr = 3'b000;
    axil_read(9'h124, 32'h00010002, 2'b00);
    axil_write(9'h124, 32'h0, 4'b1111, 2'b10);

    // back-to-back reads with the master stalling R: the block takes a second read into its
    // decode stage behind the full R register, then stalls AR; nothing lost or duplicated.
    // ARREADY is a registered pulse, so each address stays up until its handshake.
    @(negedge clk);
    araddr = 9'h01c; arvalid = 1'b1; rready = 1'b0;
    @(posedge clk); while (!arready) @(posedge clk);
    @(negedge clk);
    araddr = 9'h000;
    @(posedge clk); while (!arready) @(posedge clk);
    @(negedge clk);
    araddr = 9'h110;
    repeat (3) @(negedge clk);
    check("ar stalled while R is full", {63'd0, arready}, 64'd0);
    check("first read waits in R", {63'd0, rvalid}, 64'd1);
    rready = 1'b1;
    @(posedge clk);
    check("first read data", {32'd0, rdata}, 64'hde22be44);
    // The second read moves to R as the first is taken, and the third is taken as it moves.
    @(negedge clk);
    check("second read data", {32'd0, rdata}, 64'h0000000b);
    check("third read taken", {63'd0, arready}, 64'd1);
    @(negedge clk); arvalid = 1'b0;
    check("R empty, third read decoding", {63'd0, rvalid}, 64'd0);
    @(negedge clk);
    check("third read data", {32'd0, rdata}, 64'h00000002);
    @(negedge clk);
    check("no fourth response", {63'd0, rvalid}, 64'd0);
    rready = 1'b0;

    // The readies are flops (AXI: no combinational path from inputs to outputs): none rises
    // in the cycle its valids rise; the transfers are taken in the next cycle, B follows one
    // cycle after the write's handshake and R two after the read's (an unmapped address).
    @(negedge clk);
    awaddr = 9'h1fc; wdata = 32'h0; wstrb = 4'b1111; awvalid = 1'b1; wvalid = 1'b1; bready = 1'b1;
    araddr = 9'h1fc; arvalid = 1'b1; rready = 1'b1;
    #1;
    check("no ready with the valids", {61'd0, awready, wready, arready}, 64'd0);
    @(negedge clk);
    check("readies the cycle after", {61'd0, awready, wready, arready}, 64'd7);
    @(negedge clk);
    awvalid = 1'b0; wvalid = 1'b0; arvalid = 1'b0;
    check("readies pulse one cycle", {61'd0, awready, wready, arready}, 64'd0);
    check("B after the handshake", {61'd0, bvalid, bresp}, 64'd7);
    check("R not yet", {63'd0, rvalid}, 64'd0);
    @(negedge clk);
    check("R two cycles after", {61'd0, rvalid, rresp}, 64'd7);
    check("B taken", {63'd0, bvalid}, 64'd0);
    @(negedge clk);
    bready = 1'b0; rready = 1'b0;

    $display("tb_example_csr: %0d passed, %0d failed", passed, failed);
    $finish;
  end

  initial begin
    #200000;
    $display("tb_example_csr: timeout");
    $display("%0d passed, %0d failed", passed, failed + 1);
    $finish;
  end
endmodule
